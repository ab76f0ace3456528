#include "npu/cascade_device.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "base/content_hash.hpp"

namespace aopt::npu {

nlohmann::json to_json(const cascade_counts& c) {
  return {{"evaluated", c.evaluated},
          {"simulator_failed", c.simulator_failed},
          {"filtered", c.filtered},
          {"hardware", c.hardware},
          {"hardware_failed", c.hardware_failed}};
}

result<cascade_counts> cascade_counts_from_json(const nlohmann::json& j) {
  if (!j.is_object())
    return invalid_argument("cascade counts: expected an object, got " + j.dump());
  cascade_counts c;
  const std::pair<const char*, uint64_t*> fields[] = {{"evaluated", &c.evaluated},
                                                      {"simulator_failed", &c.simulator_failed},
                                                      {"filtered", &c.filtered},
                                                      {"hardware", &c.hardware},
                                                      {"hardware_failed", &c.hardware_failed}};
  for (const auto& [key, field] : fields) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_unsigned()) {
      return invalid_argument(fmt::format("cascade counts: \"{}\" is missing or not a count", key));
    }
    *field = it->get<uint64_t>();
  }
  return c;
}

cascade_counts& operator+=(cascade_counts& a, const cascade_counts& b) {
  a.evaluated += b.evaluated;
  a.simulator_failed += b.simulator_failed;
  a.filtered += b.filtered;
  a.hardware += b.hardware;
  a.hardware_failed += b.hardware_failed;
  return a;
}

cascade_device::cascade_device(std::shared_ptr<device> simulator, std::shared_ptr<device> hardware,
                               double margin, std::shared_ptr<measurement_log> log)
    : simulator_(std::move(simulator)),
      hardware_(std::move(hardware)),
      margin_(margin),
      log_(std::move(log)) {}

std::string cascade_device::checker_id() const {
  return simulator_->checker_id();
}

std::string cascade_device::profile_id() const {
  return "cascade:" + hardware_->profile_id() + "+" + simulator_->profile_id();
}

std::optional<eval_result> cascade_device::remeasure(const op_package& op,
                                                     const std::string& tiling_source,
                                                     const std::string& kernel_source,
                                                     const eval_options& options) {
  return hardware_->remeasure(op, tiling_source, kernel_source, options);
}

cascade_counts cascade_device::counts() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counts_;
}

eval_result cascade_device::evaluate(const op_package& op, const std::string& tiling_source,
                                     const std::string& kernel_source,
                                     const eval_options& options) {
  const std::string key = op.spec.name + "@" + op.dir.string();
  eval_result sim = simulator_->evaluate(op, tiling_source, kernel_source, options);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++counts_.evaluated;
    if (!sim.ok()) {
      ++counts_.simulator_failed;
      sim.diagnostics.push_back("cascade: stopped by the simulator; not sent to the NPU");
      return sim;
    }
    auto best = best_sim_.find(key);
    if (best != best_sim_.end() && sim.latency_us > best->second * (1 + margin_)) {
      ++counts_.filtered;
      sim.measurement.verdict = "filtered";
      sim.diagnostics.push_back(
          fmt::format("cascade: simulated {:.3f} us is more than {:.0f} % above the current best's "
                      "simulated {:.3f} us; not sent to the NPU",
                      sim.latency_us, margin_ * 100, best->second));
      return sim;
    }
    ++counts_.hardware;
  }

  eval_result hw = hardware_->evaluate(op, tiling_source, kernel_source, options);
  hw.diagnostics.push_back(
      fmt::format("cascade: simulated {:.3f} us on {}", sim.latency_us, simulator_->profile_id()));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!hw.ok()) {
      ++counts_.hardware_failed;
    } else if (hw.measurement.verdict.empty() || hw.measurement.verdict == "faster" ||
               best_sim_.count(key) == 0) {
      best_sim_[key] = sim.latency_us;
    }
  }
  if (log_ && hw.ok() && hw.measurement.measured) {
    measurement_record rec;
    rec.op = op.spec.name;
    rec.device_profile = hw.device_profile;
    rec.candidate = content_hash({tiling_source, kernel_source}).substr(0, 16);
    rec.measured = hw.measurement;
    rec.has_sim = true;
    rec.sim_profile_id = simulator_->profile_id();
    rec.sim_latency_us = sim.latency_us;
    rec.sim_profile = sim.profile;
    status s = log_->append(rec);
    if (!s.ok()) spdlog::warn("cascade: {}", s.message());
  }
  return hw;
}

}  // namespace aopt::npu
