// What the tests of the motif rules share: applying a rule that must apply, and evaluating
// rewritten kernels of a corpus expert on the simulator (one input set, the shared object
// cache), where each must come out `ok`.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "agent/evaluation/evaluation_service.hpp"
#include "agent/motifs/optimization_rules.hpp"
#include "agent/motifs/rewind_rules.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/local_device_slots.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"
#include "support/temp_dir.hpp"

namespace aopt::testing {

// `kernel` after the rewind (or optimization) rule `rule`, which must apply.
inline std::string apply_rule(const std::string& rule, const std::string& kernel, bool rewind) {
  const agent::kernel_rule* r =
      rewind ? agent::find_rewind_rule(rule) : agent::find_optimization_rule(rule);
  REQUIRE(r != nullptr);
  REQUIRE_MESSAGE(r->applies(kernel), rule << " does not apply to:\n" << kernel);
  result<std::string> out = r->apply(kernel);
  REQUIRE_MESSAGE(out.ok(), out.error().to_string());
  return *out;
}

// Corpus experts (or other packages) evaluated with other kernels on the simulator (ascend910b4).
class expert_bench {
 public:
  expert_bench() {
    result<sim::hw_profile> hw = npu::find_hardware_profile(
        "ascend910b4", std::filesystem::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE_MESSAGE(hw.ok(), hw.error().to_string());
    npu::sim_device_options options;
    options.work_dir = work_.path();
    options.cache_dir = shared_object_cache();
    npu::eval_options eval;
    eval.input_sets = 1;
    service_ = std::make_unique<agent::evaluation_service>(
        std::make_shared<npu::local_device_slots>(std::make_shared<npu::sim_device>(*hw, options),
                                                  1),
        nullptr, eval);
  }

  static std::shared_ptr<const npu::op_package> expert(const std::string& name) {
    return package(std::filesystem::path(AOPT_SOURCE_DIR) / "corpus/experts" / name);
  }

  // Any operator package (a wild one, say), as it is on disk.
  static std::shared_ptr<const npu::op_package> package(const std::filesystem::path& dir) {
    result<npu::op_package> loaded = npu::load_op_package(dir);
    REQUIRE_MESSAGE(loaded.ok(), loaded.error().to_string());
    return std::make_shared<const npu::op_package>(std::move(*loaded));
  }

  // The result of `op` with `kernel`, which must evaluate `ok`.
  npu::eval_result evaluate_ok(const std::shared_ptr<const npu::op_package>& op,
                               const std::string& kernel) {
    result<agent::evaluation> e =
        service_->evaluate({op, op->host_source, kernel, "test", false, false});
    REQUIRE_MESSAGE(e.ok(), e.error().to_string());
    REQUIRE_MESSAGE(e->result.status == npu::eval_status::ok, e->result.message);
    return e->result;
  }

  // Its simulated latency.
  double latency_us(const std::shared_ptr<const npu::op_package>& op, const std::string& kernel) {
    return evaluate_ok(op, kernel).latency_us;
  }

 private:
  temp_dir work_;
  std::unique_ptr<agent::evaluation_service> service_;
};

}  // namespace aopt::testing
