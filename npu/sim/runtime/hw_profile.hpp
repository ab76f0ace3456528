// Constants of a simulated Ascend chip, loaded from config/hardware/<name>.toml by aopt and
// handed to the candidate process as JSON. Every value is a public approximation or assumed
// (the TOML file says which for each); the model ranks candidates, it is not cycle-accurate.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace aopt::sim {

struct hw_profile {
  std::string name = "ascend910b4";
  uint32_t vector_cores = 40;  // AIV cores: the upper bound of blockDim
  double clock_ghz = 1.5;
  uint32_t ub_bytes = 196608;  // Unified Buffer per vector core
  uint32_t ub_block_bytes = 32;
  // DMA
  double gm_read_bytes_per_cycle = 32;       // per core, GM -> UB (MTE2)
  double gm_write_bytes_per_cycle = 32;      // per core, UB -> GM (MTE3)
  double hbm_gbps = 800;                     // aggregate HBM bandwidth shared by all cores, GB/s
  double dma_latency_cycles = 500;           // fixed start-up of one DataCopy
  double dma_burst_overhead_cycles = 20;     // per burst (DataCopyParams blockCount)
  uint32_t dma_efficient_burst_bytes = 512;  // bursts shorter than this pay the short-burst penalty
  double dma_short_burst_penalty = 2.0;      // bandwidth divisor for a short burst
  double dma_unaligned_efficiency = 0.7;     // GM address 32- but not 512-byte aligned
  // Vector: cycles per 256-byte repeat by op class, plus a start-up per instruction
  double vec_startup_cycles = 14;
  double vec_simple_cycles_per_repeat = 1;
  double vec_mul_cycles_per_repeat = 1;
  double vec_div_transcendental_cycles_per_repeat = 4;
  double vec_reduce_cycles_per_repeat = 4;
  double vec_cast_cycles_per_repeat = 2;
  double vec_compare_select_cycles_per_repeat = 2;
  // Scalar
  double issue_cycles = 1;               // scalar cost to issue any instruction to a pipe
  double scalar_ub_access_cycles = 5;    // LocalTensor GetValue/SetValue
  double scalar_gm_access_cycles = 200;  // GlobalTensor GetValue/SetValue
  uint32_t pipe_queue_depth = 32;        // instructions waiting per pipe before issue stalls
  // Launch
  double launch_base_us = 4;
  double launch_per_core_us = 0.4;
  // Compiler: CANN's --cce-auto-sync (on by default) inserts the scalar <-> vector and
  // scalar <-> MTE synchronisation of UB data itself (auto_sync.hpp).
  bool auto_sync = true;

  double cycles_to_us(double cycles) const { return cycles / (clock_ghz * 1e3); }
  double launch_overhead_us(uint32_t block_dim) const {
    return launch_base_us + launch_per_core_us * block_dim;
  }
};

// Every field, keyed by its name.
void to_json(nlohmann::json& j, const hw_profile& p);
// Keys absent from `j` keep their values in `p`. Throws std::invalid_argument naming the key for
// an unknown key, a wrong type or an out-of-range value (a non-positive clock, an efficiency
// outside (0, 1], ...), leaving `p` unchanged.
void from_json(const nlohmann::json& j, hw_profile& p);

}  // namespace aopt::sim
