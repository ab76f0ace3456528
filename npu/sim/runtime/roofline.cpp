#include "roofline.hpp"

#include <algorithm>

namespace aopt::sim {

namespace {

// The bytes one simple vector repeat covers (timing_model.cpp charges the same).
constexpr double vector_repeat_bytes = 256;

double cube_macs_per_cycle(npu::dtype t, const hw_profile& hw) {
  switch (t) {
    case npu::dtype::float16:
    case npu::dtype::bfloat16:
      return hw.cube_f16_macs_per_cycle;
    case npu::dtype::float32:
      return hw.cube_f32_macs_per_cycle;
    default:
      // Integer operands: the fastest rate, so that the bound is never above the truth.
      return std::max(
          {hw.cube_i8_macs_per_cycle, hw.cube_f16_macs_per_cycle, hw.cube_f32_macs_per_cycle});
  }
}

}  // namespace

npu::roofline compute_roofline(const npu::op_spec& op, double latency_us, const hw_profile& hw) {
  npu::roofline r;
  // hbm_gbps GB/s = hbm_gbps * 1e3 bytes per microsecond.
  r.memory_bound_us = static_cast<double>(op.io_bytes()) / (hw.hbm_gbps * 1e3);
  uint64_t output_bytes = 0;
  for (const auto& t : op.outputs) output_bytes += t.bytes();
  const double vector_cycles = op.least_vector_passes() *
                               (static_cast<double>(output_bytes) / vector_repeat_bytes) *
                               hw.vec_simple_cycles_per_repeat;
  r.vector_bound_us = hw.cycles_to_us(vector_cycles / hw.vector_cores);
  // Multiply-accumulates over the peak cube throughput of every AIC core.
  double cube_cycles = 0;
  for (const npu::cube_work& w : op.least_cube_work()) {
    cube_cycles += static_cast<double>(w.macs) / cube_macs_per_cycle(w.type, hw);
  }
  r.compute_bound_us = hw.cycles_to_us(cube_cycles / hw.cube_cores);
  // The best kernel may use one core if that suffices, so the cheapest launch is the floor.
  r.bound_us = hw.launch_overhead_us(1) +
               std::max({r.memory_bound_us, r.vector_bound_us, r.compute_bound_us});
  r.achieved_fraction = latency_us > 0 ? r.bound_us / latency_us : 0;
  return r;
}

}  // namespace aopt::sim
