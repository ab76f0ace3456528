#include "agent/heuristics/bank_rewind.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <set>

#include "agent/bank/bank_store.hpp"
#include "agent/bank/bm25_retriever.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/local_device_slots.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "storage/store.hpp"
#include "support/shared_object_cache.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;
using namespace aopt::agent;
namespace fs = std::filesystem;

namespace {

npu::eval_result timed(double latency_us, double stddev_us = 0, uint32_t repetitions = 1) {
  npu::eval_result r;
  r.status = npu::eval_status::ok;
  r.latency_us = latency_us;
  r.latency.median_us = latency_us;
  r.latency.stddev_us = stddev_us;
  r.latency.repetitions = repetitions;
  return r;
}

npu::op_package load_expert(const std::string& name) {
  result<npu::op_package> op =
      npu::load_op_package(fs::path(AOPT_SOURCE_DIR) / "corpus/experts" / name);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(*op);
}

// The simulator behind one local slot, checking one input set per evaluation (fast).
struct sim_fixture {
  testing::temp_dir work;
  std::unique_ptr<evaluation_service> evaluations;

  sim_fixture() {
    result<sim::hw_profile> hw =
        npu::find_hardware_profile("ascend910b4", fs::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE_MESSAGE(hw.ok(), hw.error().to_string());
    npu::sim_device_options options;
    options.work_dir = work.path();
    options.cache_dir = aopt::testing::shared_object_cache();
    npu::eval_options eval;
    eval.input_sets = 1;
    evaluations = std::make_unique<evaluation_service>(
        std::make_shared<npu::local_device_slots>(std::make_shared<npu::sim_device>(*hw, options),
                                                  1),
        nullptr, eval);
  }
};

std::shared_ptr<const npu::op_package> shared(const npu::op_package& op) {
  return std::make_shared<const npu::op_package>(op);
}

}  // namespace

TEST_CASE("a step is significant only when it slows the kernel beyond the threshold and noise") {
  CHECK(significant_slowdown(timed(100), timed(106), 0.05));
  CHECK_FALSE(significant_slowdown(timed(100), timed(104), 0.05));
  CHECK_FALSE(significant_slowdown(timed(100), timed(95), 0.05));
  // 10 % slower but with a spread of 8 us on each side: within two sigmas of the noise.
  CHECK_FALSE(significant_slowdown(timed(100, 8, 5), timed(110, 8, 5), 0.05));
  CHECK(significant_slowdown(timed(100, 1, 5), timed(110, 1, 5), 0.05));
  npu::eval_result failed = timed(500);
  failed.status = npu::eval_status::precision_error;
  CHECK_FALSE(significant_slowdown(timed(100), failed, 0.05));
}

TEST_CASE("a rewind step that does not slow the kernel is evaluated and dropped") {
  sim_fixture sim;
  const npu::op_package expert = load_expert("hardswish_custom");
  // A step that changes the text but not the work: the simulator times it like the expert.
  rewind_proposer cosmetic = [](const std::string& kernel, const std::vector<std::string>& tried,
                                uint32_t) -> result<rewind_proposal> {
    if (!tried.empty()) return not_found("one step only");
    return rewind_proposal{"comment_only",   "none",
                           "adds a comment", "// rewind test: no motif removed\n" + kernel,
                           nullptr,          ""};
  };
  result<rewind_trajectory> traj = rewind_expert(*sim.evaluations, shared(expert), cosmetic, {});
  REQUIRE_MESSAGE(traj.ok(), traj.error().to_string());
  REQUIRE(traj->steps.size() == 1);
  CHECK(traj->steps[0].result.ok());
  CHECK(traj->steps[0].verdict == "not_slower");
  CHECK_FALSE(traj->steps[0].kept);
  CHECK(traj->pairs.empty());
}

TEST_CASE("a failed proposal is recorded but never reported to the proposer as a removed motif") {
  sim_fixture sim;
  const npu::op_package expert = load_expert("hardswish_custom");
  std::vector<std::vector<std::string>> seen;
  rewind_proposer flaky = [&seen](const std::string& kernel, const std::vector<std::string>& tried,
                                  uint32_t step) -> result<rewind_proposal> {
    seen.push_back(tried);
    if (step > 2) return not_found("done");
    rewind_proposal failed;
    failed.motif = "llm-failure";
    failed.kernel = kernel;
    failed.failure = "malformed_json: no motif";
    return failed;
  };
  result<rewind_trajectory> traj = rewind_expert(*sim.evaluations, shared(expert), flaky, {});
  REQUIRE_MESSAGE(traj.ok(), traj.error().to_string());
  REQUIRE(traj->steps.size() == 2);
  CHECK(traj->steps[0].verdict == "proposal_failed: malformed_json: no motif");
  CHECK(traj->pairs.empty());
  REQUIRE(seen.size() == 3);
  for (const std::vector<std::string>& tried : seen) CHECK(tried.empty());
}

TEST_CASE("the rewind record key changes with the sources, policy, profile and significance") {
  const npu::op_package expert = load_expert("hardswish_custom");
  const std::string key = rewind_record_key(expert, "heuristic", "sim:a", 0.05);
  CHECK(key == rewind_record_key(expert, "heuristic", "sim:a", 0.05));
  CHECK(key != rewind_record_key(expert, "llm", "sim:a", 0.05));
  CHECK(key != rewind_record_key(expert, "heuristic", "sim:b", 0.05));
  CHECK(key != rewind_record_key(expert, "heuristic", "sim:a", 0.06));
  npu::op_package edited = expert;
  edited.kernel_source += "\n";
  CHECK(key != rewind_record_key(edited, "heuristic", "sim:a", 0.05));
}

TEST_CASE("heuristic rewind keeps only slowing steps and its tuples are retrieved by diagnosis") {
  sim_fixture sim;
  testing::temp_dir dbdir;
  result<std::unique_ptr<storage::store>> db = storage::store::open(dbdir.path() / "db");
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());
  result<bank_writer> writer = bank_writer::open(**db, 0.9);
  REQUIRE(writer.ok());

  std::vector<retrieval_probe> probes;
  size_t pairs = 0;
  for (const std::string name : {"addcmul_custom", "hardswish_custom", "row_mean_custom"}) {
    const npu::op_package expert = load_expert(name);
    result<rewind_trajectory> traj =
        rewind_expert(*sim.evaluations, shared(expert), heuristic_rewind_proposer(), {});
    REQUIRE_MESSAGE(traj.ok(), traj.error().to_string());
    std::set<std::string> motifs;
    for (const rewind_step& s : traj->steps) {
      CHECK_MESSAGE(motifs.insert(s.motif).second, "motif tried twice: " << s.motif);
      CHECK(s.kept == (s.verdict == "kept"));
    }
    for (const rewind_pair& p : traj->pairs) {
      CHECK(p.slow_result.latency_us > p.fast_result.latency_us * 1.05);
      experience_tuple t = distill_pair(expert, p, "heuristic-rewind");
      CHECK(t.provenance.expert_op == name);
      CHECK(t.provenance.latency_before_us > t.provenance.latency_after_us);
      CHECK_FALSE(t.code_diff.empty());
      CHECK_FALSE(t.bottleneck.empty());
      REQUIRE(t.embedding.has_value());
      result<insert_outcome> done = writer->insert(std::move(t));
      REQUIRE(done.ok());
      probes.push_back({diagnose_slow_kernel(expert, p).query, done->id});
      ++pairs;
    }
  }
  REQUIRE(pairs >= 3);

  bm25_retriever retriever;
  for (const experience_tuple& t : writer->tuples()) retriever.add(t);
  const double rate = top_k_hit_rate(retriever, probes, 3);
  MESSAGE("top-3 retrieval hit rate " << rate << " over " << probes.size() << " pairs");
  CHECK(rate >= 0.7);
}
