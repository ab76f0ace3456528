#include "roofline.hpp"

#include <algorithm>

namespace aopt::sim {

npu::roofline compute_roofline(uint64_t io_bytes, double vector_work_cycles, double latency_us,
                               const hw_profile& hw, double cube_work_cycles) {
  npu::roofline r;
  // hbm_gbps GB/s = hbm_gbps * 1e3 bytes per microsecond.
  r.memory_bound_us = static_cast<double>(io_bytes) / (hw.hbm_gbps * 1e3);
  r.vector_bound_us = hw.cycles_to_us(vector_work_cycles / hw.vector_cores);
  // The best kernel may use one core if that suffices, so the cheapest launch is the floor.
  // FLOPs over the peak cube throughput of every AIC core.
  r.compute_bound_us = hw.cycles_to_us(cube_work_cycles / hw.cube_cores);
  r.bound_us = hw.launch_overhead_us(1) +
               std::max({r.memory_bound_us, r.vector_bound_us, r.compute_bound_us});
  r.achieved_fraction = latency_us > 0 ? r.bound_us / latency_us : 0;
  return r;
}

}  // namespace aopt::sim
