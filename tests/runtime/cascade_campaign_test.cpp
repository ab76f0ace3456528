// A campaign on device.kind = "cascade" (the real simulator in front of the stand-in CANN
// toolchain of tests/data/cann/standin, which builds nothing and prints msprof's formats with
// seeded noise): its stage counts survive a resume in the campaign record, and at its end the
// finalists are re-measured with more samples and the report's final numbers are those.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "config/aopt_config.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/report.hpp"
#include "storage/store.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path cann_data = fs::path(AOPT_TEST_DATA_DIR) / "cann";

aopt::result<aopt::runtime::campaign_outcome> run_copy(aopt::storage::store& db) {
  const std::string standin = "sh " + (cann_data / "standin").string();
  const std::vector<std::string> overrides = {
      "campaign.budget=1",
      "campaign.strategy=stage1",
      "device.kind=\"cascade\"",
      "cann.build=\"" + standin + "/build.sh {op_dir} {work_dir} {kernel_name}\"",
      "cann.install=\"\"",
      "cann.run=\"" + standin + "/run.sh {op_dir} {work_dir} {device_id}\"",
      "cann.profile=\"" + standin +
          "/profile.sh {op_dir} {work_dir} {kernel_name} {device_id} old 5\"",
      "cann.cann_version=\"" + standin + "/version.sh cann\"",
      "cann.driver_version=\"" + standin + "/version.sh driver\"",
      "cann.warmup_runs=0",
      "cann.min_samples=3",
      "cann.max_samples=3",
      "cann.finalist_factor=2",
      "cann.remeasure_top=2"};
  auto cfg = aopt::config::load_config("", overrides);
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  aopt::runtime::campaign_request request;
  request.campaign = "c-cascade";
  request.operators = {cann_data / "copy_custom"};
  request.config = *cfg;
  return aopt::runtime::run_campaign(request, db, nullptr,
                                     std::make_shared<std::atomic<bool>>(false));
}

}  // namespace

TEST_CASE("cascade: stage counts survive a resume and the finalists are re-measured at the end") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());

  auto first = run_copy(**db);
  REQUIRE_MESSAGE(first.ok(), first.error().to_string());
  for (const auto& e : first->errors) MESSAGE(e);
  REQUIRE(first->episodes.size() == 1);
  INFO(first->episodes[0].failure);
  CHECK(first->episodes[0].phase == aopt::agent::episode_phase::done);
  REQUIRE(first->cascade.has_value());
  CHECK(first->cascade->evaluated >= 1);
  CHECK(first->cascade->hardware >= 1);  // the baseline always goes to the NPU
  // Stage I candidates were probed with a simulator device made for the purpose (issue 16).
  CHECK(first->tiling_probe == "simulator device built to probe (device.kind = cascade)");

  // The finalists: the baseline first, re-measured with max_samples x finalist_factor samples.
  REQUIRE(first->finalists.has_value());
  REQUIRE(first->finalists->size() == 1);
  const aopt::runtime::operator_finalists& f = first->finalists->front();
  CHECK(f.op == "copy_custom");
  REQUIRE_FALSE(f.finalists.empty());
  CHECK(f.finalists.front().seq == -1);
  CHECK(f.finalists.front().remeasured.ok());
  CHECK(f.finalists.front().remeasured.measurement.n == 6);
  CHECK(f.baseline_us == doctest::Approx(20).epsilon(0.08));
  CHECK(f.speedup > 0);
  CHECK(f.finalists.size() <= 3);  // the baseline and at most remeasure_top = 2 candidates
  // The final best is the campaign's best re-measured (the baseline when it stayed best).
  const int64_t best_seq = first->episodes[0].best_seq;
  const bool candidate_best = f.finalists.size() > 1 && f.finalists[1].seq == best_seq;
  CHECK(f.best_seq == (candidate_best ? best_seq : -1));
  CHECK(f.best_us == doctest::Approx(f.finalists[candidate_best ? 1 : 0].remeasured.latency_us));

  aopt::runtime::report_data d;
  d.campaign = first->campaign;
  d.simulated = false;
  d.episodes = first->episodes;
  d.cascade = first->cascade;
  d.finalists = first->finalists;
  const std::string md = aopt::runtime::report_markdown(d);
  CHECK(md.find("Final numbers: at the campaign's end each operator's baseline") !=
        std::string::npos);
  CHECK(md.find("| copy_custom | ") != std::string::npos);
  CHECK(md.find("Cascade (every run of the campaign)") != std::string::npos);
  const nlohmann::json j = aopt::runtime::report_json(d);
  CHECK(j["final_numbers"] == "end-of-campaign re-measurement");
  CHECK(j["operators"][0]["baseline_us"].get<double>() == doctest::Approx(f.baseline_us));

  // The record holds the counts; a resume (nothing left to evaluate) reports the same counts.
  auto record = (*db)->get_campaign("c-cascade");
  REQUIRE(record.ok());
  CHECK((*record)["cascade"]["evaluated"] == first->cascade->evaluated);
  auto resumed = run_copy(**db);
  REQUIRE_MESSAGE(resumed.ok(), resumed.error().to_string());
  REQUIRE(resumed->cascade.has_value());
  CHECK(resumed->cascade->evaluated == first->cascade->evaluated);
  CHECK(resumed->cascade->hardware == first->cascade->hardware);
  CHECK(resumed->cascade->simulator_failed == first->cascade->simulator_failed);
  CHECK(resumed->cascade->filtered == first->cascade->filtered);

  // On the simulator nothing is re-measured, and the report says why.
  aopt::runtime::report_data sim;
  sim.campaign = "c-sim";
  sim.simulated = true;
  CHECK(aopt::runtime::report_markdown(sim).find(
            "Finalists were not re-measured: the simulator's latency is deterministic") !=
        std::string::npos);
}
