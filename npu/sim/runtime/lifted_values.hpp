// The values of a tiling program's lifted constants (npu/sim/device/tiling_constant_lift.hpp), as
// the parent passes them to a candidate or probe process: one environment variable,
//
//   AOPT_SIM_LIFTED=8,2048,1
//
// slot 0, 1, 2 in decimal. The environment, not the spec descriptor, because the values must be
// in place before the candidate's own static initializers run, which is before main reads the
// spec (lifted_slots.cpp stores them from a constructor that runs first).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aopt::sim {

inline constexpr const char* lifted_values_variable = "AOPT_SIM_LIFTED";
// Slots per integer type; aopt_sim/lifted_constants.h declares as many.
inline constexpr uint32_t lifted_slot_count = 64;

// "AOPT_SIM_LIFTED=<v0>,<v1>,...". At most lifted_slot_count values.
std::string lifted_values_assignment(const std::vector<uint64_t>& values);

// The values of the variable's value text; nullopt when it is not a comma-separated list of at
// most lifted_slot_count unsigned decimal 64-bit numbers.
std::optional<std::vector<uint64_t>> parse_lifted_values(const char* text);

}  // namespace aopt::sim
