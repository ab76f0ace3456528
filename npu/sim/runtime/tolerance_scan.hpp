// The judge's first pass over an output (tensor_check.cpp): whether every element is within
// atol + rtol * |expected| of a finite expected value. Most outputs pass it, and it is then the
// whole comparison, so it runs on the CPU's vector units where they exist: on x86-64 with AVX2
// and F16C, eight elements at a time, half converted by the hardware (vcvtph2ps, exact for every
// half, as the table-free software conversion is). The arithmetic is the scalar pass's own, in
// the same order and in double (no fused multiply-add), so both answer the same for every
// input; a CPU without those units takes the scalar pass.
#pragma once

#include <cstdint>
#include <optional>

#include "npu/protocol/op_spec.hpp"

namespace aopt::sim {

// nullopt when no vectorised pass exists for `type` on this CPU; otherwise whether all `n`
// elements of `actual` (raw elements of `type`) are within tolerance of `expected`.
std::optional<bool> all_within_vectorised(npu::dtype type, const uint8_t* actual,
                                          const double* expected, uint64_t n, double atol,
                                          double rtol);

}  // namespace aopt::sim
