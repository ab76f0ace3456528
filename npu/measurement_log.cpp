#include "npu/measurement_log.hpp"

#include <fmt/format.h>

namespace aopt::npu {

namespace fs = std::filesystem;
using json = nlohmann::json;

json to_json(const measurement_record& r) {
  json j = {{"op", r.op},
            {"device_profile", r.device_profile},
            {"candidate", r.candidate},
            {"measured", r.measured}};
  if (r.has_sim) {
    j["sim"] = {{"profile_id", r.sim_profile_id},
                {"latency_us", r.sim_latency_us},
                {"profile", r.sim_profile}};
  }
  return j;
}

result<measurement_record> measurement_from_json(const json& j) {
  measurement_record r;
  try {
    if (!j.is_object()) return invalid_argument("expected a JSON object");
    r.op = j.at("op").get<std::string>();
    r.device_profile = j.value("device_profile", "");
    r.candidate = j.value("candidate", "");
    r.measured = j.at("measured").get<measurement_stats>();
    if (!(r.measured.median_us > 0)) return invalid_argument("measured.median_us: must be > 0");
    if (auto it = j.find("sim"); it != j.end()) {
      r.has_sim = true;
      r.sim_profile_id = it->value("profile_id", "");
      r.sim_latency_us = it->at("latency_us").get<double>();
      r.sim_profile = it->at("profile").get<eval_profile>();
    }
  } catch (const json::exception& e) {
    return invalid_argument(e.what());
  }
  return r;
}

result<std::shared_ptr<measurement_log>> measurement_log::open(const fs::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  auto log = std::shared_ptr<measurement_log>(new measurement_log(path));
  log->out_.open(path, std::ios::app | std::ios::binary);
  if (!log->out_) return not_found("measurements file " + path.string() + ": cannot open");
  return log;
}

status measurement_log::append(const measurement_record& r) {
  const std::string line = to_json(r).dump() + "\n";
  std::lock_guard<std::mutex> lock(mutex_);
  out_ << line;
  out_.flush();  // a campaign stopped at any point leaves only complete lines
  if (!out_) return internal_error("measurements file " + path_.string() + ": write failed");
  return {};
}

result<std::vector<measurement_record>> read_measurements(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path.string() + ": cannot open");
  std::vector<measurement_record> out;
  size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      return invalid_argument(fmt::format("{}:{}: not a JSON object", path.string(), line_no));
    }
    auto r = measurement_from_json(j);
    if (!r.ok()) return r.error().with_context(fmt::format("{}:{}", path.string(), line_no));
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace aopt::npu
