// device.kind = "cascade" as a plain class: scripted stand-ins for the simulator and the NPU
// (the real ones are tested in sim_device_test and cann_device_test).
#include "npu/cascade_device.hpp"

#include <atomic>
#include <fstream>

#include <doctest/doctest.h>

#include "support/temp_dir.hpp"

using namespace aopt::npu;

namespace {

// Answers from the kernel text: "lat=<us>" is the latency, "fail" a precision error.
class scripted_device : public device {
 public:
  explicit scripted_device(std::string kind) : kind_(std::move(kind)) {}
  eval_result evaluate(const op_package&, const std::string&, const std::string& kernel,
                       const eval_options&) override {
    ++calls;
    eval_result r;
    r.device = kind_;
    if (kernel.find("fail") != std::string::npos) {
      r.status = eval_status::precision_error;
      r.error_kind = "mismatch";
      return r;
    }
    r.status = eval_status::ok;
    r.latency_us = std::stod(kernel.substr(kernel.find("lat=") + 4));
    r.profile.block_dim = 8;
    r.profile.dma_bursts = 64;
    if (kind_ == "cann") {
      r.latency_is_simulated = false;
      r.latency_us *= 3;  // the hardware is slower than the model, but ranks alike
      r.measurement.measured = true;
      r.measurement.median_us = r.latency_us;
      r.measurement.n = 10;
      r.measurement.verdict = calls == 1 ? "" : "faster";
    }
    return r;
  }
  std::string profile_id() const override { return kind_ + ":chip"; }
  std::atomic<int> calls{0};

 private:
  std::string kind_;
};

}  // namespace

TEST_CASE("cascade: the simulator filters failures and slow predictions; the NPU sees the rest") {
  aopt::testing::temp_dir tmp;
  auto sim = std::make_shared<scripted_device>("sim");
  auto npu = std::make_shared<scripted_device>("cann");
  auto log = measurement_log::open(tmp.path() / "m.jsonl");
  REQUIRE(log.ok());
  cascade_device cascade(sim, npu, 0.1, *log);
  CHECK(cascade.profile_id() == "cascade:cann:chip+sim:chip");
  op_package op;
  op.spec.name = "add";
  const eval_options o;

  eval_result base = cascade.evaluate(op, "", "lat=10", o);  // the first always goes to the NPU
  CHECK(base.ok());
  CHECK(base.device == "cann");
  CHECK(base.latency_us == 30);
  eval_result broken = cascade.evaluate(op, "", "fail", o);
  CHECK(broken.status == eval_status::precision_error);
  CHECK(broken.device == "sim");
  eval_result slow = cascade.evaluate(op, "", "lat=11.5", o);  // > 10 x 1.1
  CHECK(slow.ok());
  CHECK(slow.measurement.verdict == "filtered");
  CHECK(slow.latency_is_simulated);
  CHECK_FALSE(improves_on(slow, 1e9));
  eval_result close = cascade.evaluate(op, "", "lat=10.9", o);  // within the margin: measured
  CHECK(close.device == "cann");
  CHECK(close.measurement.verdict == "faster");
  // The best's simulated latency is now 10.9: 11.9 is within 10 %.
  eval_result next = cascade.evaluate(op, "", "lat=11.9", o);
  CHECK(next.device == "cann");

  const cascade_counts c = cascade.counts();
  CHECK(c.evaluated == 5);
  CHECK(c.simulator_failed == 1);
  CHECK(c.filtered == 1);
  CHECK(c.hardware == 3);
  CHECK(c.hardware_failed == 0);
  CHECK(sim->calls == 5);
  CHECK(npu->calls == 3);
  CHECK(to_json(c).at("filtered") == 1);

  auto records = read_measurements(tmp.path() / "m.jsonl");
  REQUIRE_MESSAGE(records.ok(), records.error().to_string());
  REQUIRE(records->size() == 3);
  CHECK(records->front().has_sim);
  CHECK(records->front().sim_latency_us == 10);
  CHECK(records->front().measured.median_us == 30);
  CHECK(records->front().sim_profile.dma_bursts == 64);
  CHECK(records->front().sim_profile_id == "sim:chip");
}
