// The values of operator tensors' elements as the candidate-side driver and the trusted checker
// handle them: rounding doubles into a tensor's bytes and back, value ranges, and the poison
// pattern that marks output bytes the kernel never wrote. The element types themselves are
// op.json's (npu/protocol/dtype.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "npu/protocol/dtype.hpp"

namespace aopt::sim {

bool is_floating(npu::dtype t);
// The representable range of an integer type ([0, 1] for bool); +-infinity for floats.
double lowest_value(npu::dtype t);
double highest_value(npu::dtype t);

// Rounds `value` to the nearest value of type `t` (ties to even; integers saturate, NaN -> 0)
// and writes its bytes to `out`.
void encode_element(double value, npu::dtype t, void* out);
double decode_element(const void* in, npu::dtype t);
// `value` after a round trip through type `t`.
double round_to_element(double value, npu::dtype t);

// Fills `count` elements with the poison pattern: a NaN bit pattern for floats, 0x5A bytes for
// integers and bool (0xA5 for odd `variant`s). An integer poison can equal a correct value, so
// consecutive input sets use alternating variants: an element the kernel never writes then
// differs from the expected value in at least one set.
void fill_poison(void* out, npu::dtype t, size_t count, uint32_t variant = 0);
bool is_poison(const void* element, npu::dtype t, uint32_t variant = 0);

}  // namespace aopt::sim
