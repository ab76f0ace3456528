// The local memories of a simulated core beyond the Unified Buffer: the cube's L1 (positions
// A1, B1, C1), L0A (A2), L0B (B2), L0C (CO1) and the bias table (C2), sized by the hardware
// profile. They live in the core's one byte array after UB, each at its own offset, so a
// local_ref addresses any of them and the hazard detector sees disjoint byte ranges per memory.
#pragma once

#include <array>
#include <cstdint>

#include "aopt_sim/kernel/defs.h"
#include "hw_profile.hpp"

namespace aopt::sim::kernel {

enum class mem_space : uint8_t { ub = 0, l1, l0a, l0b, l0c, bt };
constexpr size_t mem_space_count = 6;

// The memory a TPosition's buffers are carved from (CO2 and the vector positions: UB).
mem_space space_of(AscendC::TPosition p);
const char* space_name(mem_space s);  // "UB", "L1", "L0A", ...

struct memory_map {
  std::array<uint32_t, mem_space_count> base{};
  std::array<uint32_t, mem_space_count> size{};
  uint32_t total = 0;  // bytes of the core's array, slack included

  // The memory holding byte `addr` of the array (UB when it is in none).
  mem_space space_at(uint32_t addr) const;
};

memory_map memory_map_of(const hw_profile& hw);

}  // namespace aopt::sim::kernel
