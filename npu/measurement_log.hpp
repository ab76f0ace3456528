// The measurements file (cann.measurements_file): one JSON object per line, appended as
// hardware measurements arrive, read back by `aopt calibrate --from`.
//
//   {"op": "add_custom", "device_profile": "ascend910b4", "candidate": "<hash of T and K>",
//    "measured": {"median_us", "q1_us", "q3_us", "iqr_us", "n", "device_id", "cann_version",
//                 "driver_version", "clock_mhz"},
//    "sim": {"profile_id": "sim:ascend910b4", "latency_us": 12.5, "profile": {eval_profile}}}
//
// "sim" is present when the simulator evaluated the same candidate (device.kind = "cascade").
//
// Thread-safety: append() may be called from several threads at once.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::npu {

struct measurement_record {
  std::string op;
  std::string device_profile;
  std::string candidate;
  measurement_stats measured;
  bool has_sim = false;
  std::string sim_profile_id;
  double sim_latency_us = 0;
  eval_profile sim_profile;
};

nlohmann::json to_json(const measurement_record& r);
// Errors: invalid_argument naming the missing or mistyped key.
result<measurement_record> measurement_from_json(const nlohmann::json& j);

class measurement_log {
 public:
  // Opens `path` for appending (creating it and its folder).
  static result<std::shared_ptr<measurement_log>> open(const std::filesystem::path& path);

  status append(const measurement_record& r);

 private:
  explicit measurement_log(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
  std::mutex mutex_;
  std::ofstream out_;  // guarded by mutex_
};

// Reads every line of a measurements file; errors name the file and the line.
result<std::vector<measurement_record>> read_measurements(const std::filesystem::path& path);

}  // namespace aopt::npu
