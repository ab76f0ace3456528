#include "hw_profile.hpp"

#include <limits>
#include <stdexcept>
#include <string>

namespace aopt::sim {
namespace {

// Calls f(key, member) for every field, in declaration order; the one list both directions use.
template <class Profile, class F>
void for_each_field(Profile& p, F&& f) {
  f("name", p.name);
  f("vector_cores", p.vector_cores);
  f("clock_ghz", p.clock_ghz);
  f("ub_bytes", p.ub_bytes);
  f("ub_block_bytes", p.ub_block_bytes);
  f("gm_read_bytes_per_cycle", p.gm_read_bytes_per_cycle);
  f("gm_write_bytes_per_cycle", p.gm_write_bytes_per_cycle);
  f("hbm_gbps", p.hbm_gbps);
  f("dma_latency_cycles", p.dma_latency_cycles);
  f("dma_burst_overhead_cycles", p.dma_burst_overhead_cycles);
  f("dma_efficient_burst_bytes", p.dma_efficient_burst_bytes);
  f("dma_short_burst_penalty", p.dma_short_burst_penalty);
  f("dma_unaligned_efficiency", p.dma_unaligned_efficiency);
  f("vec_startup_cycles", p.vec_startup_cycles);
  f("vec_simple_cycles_per_repeat", p.vec_simple_cycles_per_repeat);
  f("vec_mul_cycles_per_repeat", p.vec_mul_cycles_per_repeat);
  f("vec_div_transcendental_cycles_per_repeat", p.vec_div_transcendental_cycles_per_repeat);
  f("vec_reduce_cycles_per_repeat", p.vec_reduce_cycles_per_repeat);
  f("vec_cast_cycles_per_repeat", p.vec_cast_cycles_per_repeat);
  f("vec_compare_select_cycles_per_repeat", p.vec_compare_select_cycles_per_repeat);
  f("issue_cycles", p.issue_cycles);
  f("scalar_ub_access_cycles", p.scalar_ub_access_cycles);
  f("scalar_gm_access_cycles", p.scalar_gm_access_cycles);
  f("pipe_queue_depth", p.pipe_queue_depth);
  f("launch_base_us", p.launch_base_us);
  f("launch_per_core_us", p.launch_per_core_us);
  f("auto_sync", p.auto_sync);
  f("cube_cores", p.cube_cores);
  f("l1_bytes", p.l1_bytes);
  f("l0a_bytes", p.l0a_bytes);
  f("l0b_bytes", p.l0b_bytes);
  f("l0c_bytes", p.l0c_bytes);
  f("bias_table_bytes", p.bias_table_bytes);
  f("cube_f16_macs_per_cycle", p.cube_f16_macs_per_cycle);
  f("cube_i8_macs_per_cycle", p.cube_i8_macs_per_cycle);
  f("cube_f32_macs_per_cycle", p.cube_f32_macs_per_cycle);
  f("cube_startup_cycles", p.cube_startup_cycles);
  f("l2_read_bytes_per_cycle", p.l2_read_bytes_per_cycle);
  f("mte1_bytes_per_cycle", p.mte1_bytes_per_cycle);
  f("mte1_latency_cycles", p.mte1_latency_cycles);
  f("fixpipe_bytes_per_cycle", p.fixpipe_bytes_per_cycle);
  f("fixpipe_latency_cycles", p.fixpipe_latency_cycles);
}

[[noreturn]] void reject(const std::string& key, const std::string& why) {
  throw std::invalid_argument("hw_profile: " + key + ": " + why);
}

void read_value(const std::string& key, const nlohmann::json& v, std::string& out) {
  if (!v.is_string()) reject(key, "expected a string, got " + v.dump());
  out = v.get<std::string>();
  if (out.empty()) reject(key, "must not be empty");
}

void read_value(const std::string& key, const nlohmann::json& v, uint32_t& out) {
  if (!v.is_number_integer()) reject(key, "expected a non-negative integer, got " + v.dump());
  if (v.is_number_unsigned() ? v.get<uint64_t>() > std::numeric_limits<uint32_t>::max()
                             : v.get<int64_t>() < 0)
    reject(key, "out of range: " + v.dump());
  out = v.get<uint32_t>();
}

void read_value(const std::string& key, const nlohmann::json& v, bool& out) {
  if (!v.is_boolean()) reject(key, "expected a boolean, got " + v.dump());
  out = v.get<bool>();
}

void read_value(const std::string& key, const nlohmann::json& v, double& out) {
  if (!v.is_number()) reject(key, "expected a number, got " + v.dump());
  out = v.get<double>();
}

// Values the model divides by or that have no physical meaning when negative.
void check_ranges(const hw_profile& p) {
  auto positive = [](const char* key, double v) {
    if (!(v > 0)) reject(key, "must be > 0, got " + nlohmann::json(v).dump());
  };
  auto non_negative = [](const char* key, double v) {
    if (!(v >= 0)) reject(key, "must be >= 0, got " + nlohmann::json(v).dump());
  };
  positive("vector_cores", p.vector_cores);
  positive("clock_ghz", p.clock_ghz);
  positive("ub_bytes", p.ub_bytes);
  positive("ub_block_bytes", p.ub_block_bytes);
  positive("gm_read_bytes_per_cycle", p.gm_read_bytes_per_cycle);
  positive("gm_write_bytes_per_cycle", p.gm_write_bytes_per_cycle);
  positive("hbm_gbps", p.hbm_gbps);
  non_negative("dma_latency_cycles", p.dma_latency_cycles);
  non_negative("dma_burst_overhead_cycles", p.dma_burst_overhead_cycles);
  if (!(p.dma_short_burst_penalty >= 1))
    reject("dma_short_burst_penalty",
           "must be >= 1, got " + nlohmann::json(p.dma_short_burst_penalty).dump());
  if (!(p.dma_unaligned_efficiency > 0 && p.dma_unaligned_efficiency <= 1))
    reject("dma_unaligned_efficiency",
           "must be in (0, 1], got " + nlohmann::json(p.dma_unaligned_efficiency).dump());
  non_negative("vec_startup_cycles", p.vec_startup_cycles);
  non_negative("vec_simple_cycles_per_repeat", p.vec_simple_cycles_per_repeat);
  non_negative("vec_mul_cycles_per_repeat", p.vec_mul_cycles_per_repeat);
  non_negative("vec_div_transcendental_cycles_per_repeat",
               p.vec_div_transcendental_cycles_per_repeat);
  non_negative("vec_reduce_cycles_per_repeat", p.vec_reduce_cycles_per_repeat);
  non_negative("vec_cast_cycles_per_repeat", p.vec_cast_cycles_per_repeat);
  non_negative("vec_compare_select_cycles_per_repeat", p.vec_compare_select_cycles_per_repeat);
  non_negative("issue_cycles", p.issue_cycles);
  non_negative("scalar_ub_access_cycles", p.scalar_ub_access_cycles);
  non_negative("scalar_gm_access_cycles", p.scalar_gm_access_cycles);
  positive("pipe_queue_depth", p.pipe_queue_depth);
  non_negative("launch_base_us", p.launch_base_us);
  non_negative("launch_per_core_us", p.launch_per_core_us);
  positive("cube_cores", p.cube_cores);
  positive("l1_bytes", p.l1_bytes);
  positive("l0a_bytes", p.l0a_bytes);
  positive("l0b_bytes", p.l0b_bytes);
  positive("l0c_bytes", p.l0c_bytes);
  positive("bias_table_bytes", p.bias_table_bytes);
  positive("cube_f16_macs_per_cycle", p.cube_f16_macs_per_cycle);
  positive("cube_i8_macs_per_cycle", p.cube_i8_macs_per_cycle);
  positive("cube_f32_macs_per_cycle", p.cube_f32_macs_per_cycle);
  non_negative("cube_startup_cycles", p.cube_startup_cycles);
  positive("l2_read_bytes_per_cycle", p.l2_read_bytes_per_cycle);
  positive("mte1_bytes_per_cycle", p.mte1_bytes_per_cycle);
  non_negative("mte1_latency_cycles", p.mte1_latency_cycles);
  positive("fixpipe_bytes_per_cycle", p.fixpipe_bytes_per_cycle);
  non_negative("fixpipe_latency_cycles", p.fixpipe_latency_cycles);
}

}  // namespace

void to_json(nlohmann::json& j, const hw_profile& p) {
  j = nlohmann::json::object();
  for_each_field(p, [&j](const char* key, const auto& value) { j[key] = value; });
}

void from_json(const nlohmann::json& j, hw_profile& p) {
  if (!j.is_object())
    throw std::invalid_argument("hw_profile: expected a JSON object, got " + j.dump());
  hw_profile parsed = p;
  for (const auto& [key, value] : j.items()) {
    bool known = false;
    for_each_field(parsed, [&](const char* field, auto& member) {
      if (key == field) {
        read_value(key, value, member);
        known = true;
      }
    });
    if (!known) reject(key, "unknown key");
  }
  check_ranges(parsed);
  p = std::move(parsed);
}

}  // namespace aopt::sim
