#include "npu/speedup_check.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace aopt::npu {
namespace {

// How much faster a change of a quantity from `old_value` to `new_value` can make a kernel:
// old/new for costs (bytes, instructions, busy time), new/old for resources (cores, bursts).
double cost_ratio(double old_value, double new_value) {
  if (old_value <= 0) return 1;
  if (new_value <= 0) return old_value > 0 ? 1e9 : 1;
  return std::max(1.0, old_value / new_value);
}

double resource_ratio(double old_value, double new_value) {
  return cost_ratio(new_value, old_value);
}

}  // namespace

std::optional<std::string> unexplained_speedup(const eval_result& before,
                                               const eval_result& candidate) {
  if (!before.ok() || !candidate.ok() || candidate.latency_us <= 0) return std::nullopt;
  const double speedup = before.latency_us / candidate.latency_us;
  if (speedup <= unexplained_speedup_threshold) return std::nullopt;
  const eval_profile& a = before.profile;
  const eval_profile& b = candidate.profile;
  auto busy = [](const eval_profile& p) {
    return std::max({p.scalar.time_us, p.vector.time_us, p.mte2.time_us, p.mte3.time_us});
  };
  std::vector<double> ratios = {
      resource_ratio(a.block_dim, b.block_dim),
      cost_ratio(static_cast<double>(a.gm_read_bytes + a.gm_write_bytes),
                 static_cast<double>(b.gm_read_bytes + b.gm_write_bytes)),
      resource_ratio(a.mean_burst_bytes, b.mean_burst_bytes),
      cost_ratio(static_cast<double>(a.scalar_accesses), static_cast<double>(b.scalar_accesses)),
      cost_ratio(static_cast<double>(a.vector_instructions),
                 static_cast<double>(b.vector_instructions)),
      cost_ratio(a.barrier_stall_us + a.flag_wait_us + a.launch_overhead_us,
                 b.barrier_stall_us + b.flag_wait_us + b.launch_overhead_us),
      cost_ratio(busy(a), busy(b)),
      cost_ratio(a.core_time_max_us, b.core_time_max_us),
  };
  std::sort(ratios.rbegin(), ratios.rend());
  const double explained = ratios[0] * ratios[1];
  // 10% slack for effects no single figure shows (overlap between pipes).
  if (speedup <= explained * 1.1) return std::nullopt;
  return fmt::format(
      "{:.2f}x faster than the result it improves on, but its profile explains at most {:.2f}x "
      "(blockDim {} -> {}, GM bytes {} -> {}, vector instructions {} -> {}, scalar accesses {} "
      "-> {})",
      speedup, explained, a.block_dim, b.block_dim, a.gm_read_bytes + a.gm_write_bytes,
      b.gm_read_bytes + b.gm_write_bytes, a.vector_instructions, b.vector_instructions,
      a.scalar_accesses, b.scalar_accesses);
}

}  // namespace aopt::npu
