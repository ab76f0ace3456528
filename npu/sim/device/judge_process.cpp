#include "npu/sim/device/judge_process.hpp"

#include <signal.h>

#include <cstdlib>
#include <exception>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/sim/device/sealed_memfd.hpp"
#include "npu/sim/runtime/driver_judge.hpp"
#include "npu/sim/runtime/driver_judge_process.hpp"

namespace aopt::npu {

namespace {

// A verdict is one eval_result; its warnings and diagnostics are bounded by the judge itself.
constexpr size_t verdict_limit_bytes = 16ull << 20;

eval_result judge_failure(const sim::driver_spec* spec, eval_status status, const char* kind,
                          std::string message) {
  return sim::failed_result(spec, status, kind, message);
}

}  // namespace

eval_result judge_in_child(const std::filesystem::path& judge, const judge_request& request,
                           const judge_limits& limits, subprocess_options base, judge_cost* cost) {
  const sim::driver_spec* spec = request.spec;
  auto infra = [&](std::string message) {
    return judge_failure(spec, eval_status::infra_error, "judge", std::move(message));
  };
  try {
    sim::driver_spec judge_spec = *spec;
    judge_spec.input_fds.clear();  // the judge reads input set 0 from its own descriptor
    const std::string spec_text = nlohmann::json(judge_spec).dump();
    result<unique_fd> spec_fd = sealed_memfd("aopt-spec", {{spec_text.data(), spec_text.size()}});
    if (!spec_fd.ok()) return infra("handing the judge its spec: " + spec_fd.error().message());
    // pass_fds keeps this order: 3, 4, 5, 6 (driver_judge_process.hpp).
    base.pass_fds = {request.delivery_fd, request.expected_fd, request.first_inputs_fd,
                     spec_fd->get()};
    base.argv = {judge.string(), sim::spec_fd_argument(sim::judge_fd::spec),
                 std::to_string(request.check_threads)};
    base.output_limit_bytes = verdict_limit_bytes;
    base.limits = {};
    base.limits.cpu_seconds = limits.cpu_seconds;
    base.limits.address_space_bytes = limits.address_space_bytes;
    base.limits.wall_seconds = limits.wall_seconds;
    base.limits.file_size_bytes = 1;  // it writes no file

    auto ran = run_subprocess(base);
    if (!ran.ok()) return infra("cannot run the judge: " + ran.error().message());
    if (cost != nullptr) {
      cost->cpu_seconds = ran->cpu_seconds;
      const std::string marker = "max_rss_kib=";
      if (const size_t at = ran->stderr_text.rfind(marker); at != std::string::npos) {
        cost->max_rss_bytes =
            std::strtoull(ran->stderr_text.c_str() + at + marker.size(), nullptr, 10) << 10;
      }
    }
    const auto limit_reached = [&](std::string what) {
      return judge_failure(spec, eval_status::runtime_error, "judge_limit",
                           "judging the candidate's delivery took more than " + what +
                               ": the judge's bound, which no honest candidate's trace comes near");
    };
    if (ran->timed_out) return limit_reached(fmt::format("{:g} s", limits.wall_seconds));
    if (!ran->exited && (ran->term_signal == SIGXCPU || ran->term_signal == SIGKILL)) {
      return limit_reached(fmt::format("{} s of CPU time", limits.cpu_seconds));
    }
    if (ran->exited && ran->exit_code == sim::judge_memory_exit_code) {
      return limit_reached(fmt::format("{} MiB of memory", limits.address_space_bytes >> 20));
    }
    // An allocation failure the C++ runtime could not turn into bad_alloc aborts.
    if (!ran->exited && ran->term_signal == SIGABRT &&
        ran->stderr_text.find("std::bad_alloc") != std::string::npos) {
      return limit_reached(fmt::format("{} MiB of memory", limits.address_space_bytes >> 20));
    }
    if (!ran->succeeded() || ran->stdout_truncated) {
      return infra("the judge failed (" + ran->describe() + "): " + ran->stderr_text);
    }
    const nlohmann::json verdict = nlohmann::json::parse(ran->stdout_text, nullptr, false);
    if (verdict.is_discarded()) return infra("the judge's verdict is not JSON");
    return verdict.get<eval_result>();
  } catch (const std::exception& e) {
    return infra(std::string("judge: ") + e.what());
  }
}

}  // namespace aopt::npu
