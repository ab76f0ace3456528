// The end-of-campaign re-measurement as a plain function: which candidates are finalists (read
// from a real RocksDB store), in what order they are re-measured, and where the final numbers
// come from; a device that does not re-measure (the simulator) is asked once and nothing else
// happens. The device is scripted: re-measured latencies by kernel text.
#include "runtime/finalist_remeasurement.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace {

using aopt::npu::eval_result;
using aopt::npu::eval_status;

class scripted_npu : public aopt::npu::device {
 public:
  explicit scripted_npu(std::map<std::string, double> us) : us_(std::move(us)) {}
  eval_result evaluate(const aopt::npu::op_package&, const std::string&, const std::string&,
                       const aopt::npu::eval_options&) override {
    return {};
  }
  std::string profile_id() const override { return "cann:test"; }
  std::optional<eval_result> remeasure(const aopt::npu::op_package&, const std::string&,
                                       const std::string& kernel,
                                       const aopt::npu::eval_options&) override {
    asked.push_back(kernel);
    eval_result r;
    r.status = eval_status::ok;
    r.latency_us = us_.at(kernel);
    r.measurement.measured = true;
    r.measurement.n = 90;
    return r;
  }
  std::vector<std::string> asked;

 private:
  std::map<std::string, double> us_;
};

class deterministic_device : public aopt::npu::device {
 public:
  eval_result evaluate(const aopt::npu::op_package&, const std::string&, const std::string&,
                       const aopt::npu::eval_options&) override {
    return {};
  }
  std::string profile_id() const override { return "sim:test"; }
};

void add_candidate(aopt::storage::store& db, uint64_t seq, const std::string& kernel,
                   eval_status status, double us, const std::string& verdict = "") {
  aopt::agent::candidate_record c;
  c.seq = seq;
  c.stage = seq == 0 ? 0 : 2;
  c.tiling = "T";
  c.kernel = kernel;
  c.result.status = status;
  c.result.latency_us = us;
  c.result.measurement.verdict = verdict;
  nlohmann::json j;
  aopt::agent::to_json(j, c);
  aopt::storage::transition t;
  t.campaign = "c";
  t.op = "op";
  t.episode_state = nlohmann::json::object();
  t.candidate = aopt::storage::candidate_record{seq, j};
  REQUIRE(db.commit_transition(t).ok());
}

}  // namespace

TEST_CASE("finalists: the baseline, the campaign's best, then the next best distinct ones") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE(db.ok());
  add_candidate(**db, 0, "K0", eval_status::ok, 20);                // the baseline
  add_candidate(**db, 1, "K1", eval_status::ok, 12, "faster");      // campaign best (seq 1)
  add_candidate(**db, 2, "K2", eval_status::ok, 11, "not_faster");  // lowest median, not best
  add_candidate(**db, 3, "K2", eval_status::ok, 11.5);              // same candidate again
  add_candidate(**db, 4, "K4", eval_status::ok, 5, "filtered");     // simulated only
  add_candidate(**db, 5, "K5", eval_status::runtime_error, 0);      // failed
  add_candidate(**db, 6, "K6", eval_status::ok, 13, "not_faster");

  aopt::agent::episode_state e;
  e.op_name = "op";
  e.baseline_tiling = "T";
  e.baseline_kernel = "K0";
  e.baseline_us = 20;
  e.best_seq = 1;
  aopt::npu::op_package package;
  package.spec.name = "op";
  const std::vector<std::shared_ptr<const aopt::npu::op_package>> ops = {
      std::make_shared<const aopt::npu::op_package>(package)};

  scripted_npu npu({{"K0", 21}, {"K1", 14}, {"K2", 10}, {"K6", 13}});
  auto finals = aopt::runtime::remeasure_finalists(npu, **db, "c", {e}, ops, 3, {});
  REQUIRE_MESSAGE(finals.ok(), finals.error().to_string());
  REQUIRE(finals->has_value());
  REQUIRE((*finals)->size() == 1);
  const aopt::runtime::operator_finalists& f = (*finals)->front();
  CHECK(npu.asked == std::vector<std::string>{"K0", "K1", "K2", "K6"});
  REQUIRE(f.finalists.size() == 4);
  CHECK(f.finalists[0].seq == -1);
  CHECK(f.finalists[1].seq == 1);
  CHECK(f.finalists[2].seq == 2);
  CHECK(f.finalists[3].seq == 6);
  CHECK(f.finalists[1].campaign_us == 12);
  // The campaign's best re-measured, not the finalist with the lowest re-measured median.
  CHECK(f.best_seq == 1);
  CHECK(f.baseline_us == 21);
  CHECK(f.best_us == 14);
  CHECK(f.speedup == doctest::Approx(1.5));
  const nlohmann::json j = aopt::runtime::to_json(f);
  CHECK(j["finalists"][0]["baseline"] == true);
  CHECK(j["finalists"][1]["n"] == 90);

  deterministic_device sim;
  auto none = aopt::runtime::remeasure_finalists(sim, **db, "c", {e}, ops, 3, {});
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
}
