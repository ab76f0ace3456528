// The roofline bound of an operator on a hardware profile (DESIGN §6.1.6): the time no
// implementation can beat, from the operator's minimal GM traffic (op.json's tensor sizes) and
// the vector work a run performed, and the fraction of it a run achieved.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "hw_profile.hpp"

namespace aopt::sim {

struct roofline {
  double memory_bound_us = 0;    // io_bytes / aggregate HBM bandwidth
  double vector_bound_us = 0;    // vector work cycles spread over every vector core at peak
  double bound_us = 0;           // launch overhead of one core + max of the two bounds
  double achieved_fraction = 0;  // bound_us / latency_us; above 1 means faster than possible
};

// `io_bytes`: bytes the operator must read and write at least once (its inputs and outputs).
// `vector_work_cycles`: the sum over cores of core_timing::vector_work_cycles.
// `latency_us`: the simulated latency of the run; a non-positive latency gives a fraction of 0.
roofline compute_roofline(uint64_t io_bytes, double vector_work_cycles, double latency_us,
                          const hw_profile& hw);

void to_json(nlohmann::json& j, const roofline& r);

}  // namespace aopt::sim
