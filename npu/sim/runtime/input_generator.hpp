// Deterministic input data: input set k of an operator draws every input, in op.json order,
// from one std::mt19937_64 seeded with op.seed + k, as its distribution says (uniformly within
// the input's range by default; inclusive integers for integer types), rounded to the input's
// dtype. A uniform input draws exactly the values it drew before distributions existed.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "driver_spec.hpp"

namespace aopt::sim {

std::vector<uint8_t> generate_input(const npu::tensor_spec& input, std::mt19937_64& rng);
// The same bytes, written to `out` (input.bytes() of room), without a copy of the tensor's values
// as doubles for the common draws.
void generate_input_into(const npu::tensor_spec& input, std::mt19937_64& rng, uint8_t* out);

// The values of a tensor's bytes, as the reference receives them.
std::vector<double> decode_tensor(const npu::tensor_spec& t, const uint8_t* bytes);

}  // namespace aopt::sim
