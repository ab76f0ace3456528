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
  // Cube (AIC) cores: local memories, MAC rates and the transfer pipes MTE1 and FIX.
  uint32_t cube_cores = 20;               // AIC cores: the upper bound of blockDim for cube kernels
  uint32_t l1_bytes = 524288;             // L1 buffer per cube core (A1/B1/C1)
  uint32_t l0a_bytes = 65536;             // L0A (A2)
  uint32_t l0b_bytes = 65536;             // L0B (B2)
  uint32_t l0c_bytes = 131072;            // L0C (CO1)
  uint32_t bias_table_bytes = 1024;       // BT (C2), the bias table Mmad reads
  double cube_f16_macs_per_cycle = 4096;  // half/bfloat16 in, float accumulate: 16x16x16
  double cube_i8_macs_per_cycle = 8192;   // int8 in, int32 accumulate: 16x32x16
  double cube_f32_macs_per_cycle = 1024;  // float in
  double cube_startup_cycles = 20;        // per Mmad instruction
  // GM -> L1 (cube operands, which many cores re-read: assumed L2 hits, not charged to HBM).
  double l2_read_bytes_per_cycle = 110;
  double mte1_bytes_per_cycle = 256;     // L1 -> L0A/L0B (LoadData)
  double mte1_latency_cycles = 30;       // per LoadData
  double fixpipe_bytes_per_cycle = 128;  // L0C read by Fixpipe (GM writes also bound it)
  double fixpipe_latency_cycles = 100;   // per Fixpipe
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
