// The Profiler: an annotator (agent/episode/hooks.hpp) that turns the profile of the kernel
// Stage II is about to refine into a bottleneck statement the diagnoser and the refiner read:
//
//   * the pipe that bounds it: the busiest pipe of the critical core, its busy time and share;
//   * the gap to the roofline: the achieved fraction of the bound and the microseconds between;
//   * what-if estimates from the timing model's sensitivities, first-order and labelled so:
//     the bounding pipe `roles.profiler.speedup` times faster, perfect overlap of the pipes, and
//     no barrier or flag stalls. The critical core's time is modelled as its busiest pipe plus
//     the part no pipe overlaps (core time - busiest pipe); each estimate changes one term.
//
// Simulated latencies are called simulated: the statement never passes for a measurement.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "agent/roles/role_descriptor.hpp"

namespace aopt::agent {
namespace {

struct pipe_time {
  const char* name;
  const char* what;
  double us;
};

class profiler final : public annotator_policy {
 public:
  explicit profiler(double speedup) : speedup_(speedup) {}
  std::string name() const override { return "profiler"; }

  result<annotation_reply> annotate(const annotation_request& request) override {
    const npu::eval_result& r = request.result;
    const npu::eval_profile& p = r.profile;
    annotation_reply reply;
    reply.role_state = request.role_state;
    if (!r.ok() || p.core_time_max_us <= 0) {
      reply.note.text = "no profile of this kernel to read (its evaluation was not ok)";
      return reply;
    }
    std::vector<pipe_time> pipes = {
        {"MTE2", "GM->UB copies", p.mte2.time_us},        {"V", "vector compute", p.vector.time_us},
        {"MTE3", "UB->GM copies", p.mte3.time_us},        {"S", "scalar work", p.scalar.time_us},
        {"MTE1", "L1->L0 operand moves", p.mte1.time_us}, {"M", "cube multiplies", p.cube.time_us},
        {"FIX", "L0C->GM/UB moves", p.fixpipe.time_us}};
    std::sort(pipes.begin(), pipes.end(),
              [](const pipe_time& a, const pipe_time& b) { return a.us > b.us; });
    const pipe_time& top = pipes[0];
    const pipe_time& second = pipes[1];
    const double core = p.core_time_max_us;
    const double serial = std::max(0.0, core - top.us);
    const double launch = std::max(0.0, r.latency_us - core);
    const char* kind = r.latency_is_simulated ? "simulated" : "measured";

    std::string text = fmt::format(
        "bounded by the {} pipe ({}): busy {:.3g} us of the critical core's {:.3g} us ({:.0f} "
        "%); next {} at {:.3g} us; {:.3g} us of the core's time overlaps no pipe's work",
        top.name, top.what, top.us, core, 100 * top.us / core, second.name, second.us, serial);
    if (r.roof.bound_us > 0) {
      text += fmt::format(
          ". Roofline: at {:.0f} % of its bound {:.3g} us (memory {:.3g}, vector {:.3g}, cube "
          "{:.3g} us), a gap of {:.3g} us",
          100 * r.roof.achieved_fraction, r.roof.bound_us, r.roof.memory_bound_us,
          r.roof.vector_bound_us, r.roof.compute_bound_us,
          std::max(0.0, r.latency_us - r.roof.bound_us));
    }
    const auto estimate = [&](double core_us) {
      const double total = launch + core_us;
      return fmt::format("~{:.3g} us ({:+.0f} %)", total, 100 * (total / r.latency_us - 1));
    };
    const double stalls = p.barrier_stall_us + p.flag_wait_us;
    text += fmt::format(
        ". What-if, first-order estimates from the profile (not {} runs): {} {:g}x faster -> {}; "
        "perfect overlap of the pipes -> {}",
        kind, top.name, speedup_, estimate(std::max(top.us / speedup_, second.us) + serial),
        estimate(top.us));
    if (stalls > 0) {
      text += fmt::format("; no barrier or flag stalls ({:.3g} us) -> {}", stalls,
                          estimate(std::max(top.us, core - stalls)));
    }
    text += fmt::format(". Latency {:.3g} us ({}).", r.latency_us, kind);
    reply.note.text = std::move(text);
    reply.note.tags = {std::string("bound_by_") + top.name};
    return reply;
  }

 private:
  double speedup_;
};

}  // namespace

role_descriptor describe_profiler_role() {
  role_descriptor d;
  d.name = "profiler";
  d.hook = hook_kind::annotate;
  d.summary =
      "states the kernel's bounding pipe, its gap to the roofline and what-if estimates from the "
      "profile, for the diagnoser and the refiner";
  d.settings = {{"speedup", setting_type::real, 2.0,
                 "the factor of the what-if estimate for the bounding pipe, > 1"}};
  d.make = [](const role_environment& env) -> result<hook_policy> {
    const double speedup = env.settings.at("speedup").get<double>();
    if (!(speedup > 1)) {
      return invalid_argument(
          fmt::format("config: roles.profiler.speedup: must be > 1, got {}", speedup));
    }
    return hook_policy{std::shared_ptr<annotator_policy>(std::make_shared<profiler>(speedup))};
  };
  return d;
}

}  // namespace aopt::agent
