// Bulk half <-> float conversion for the simulator's vector loops: F16C instructions where the
// host has them, bit for bit what f16_to_f32 / f32_to_f16 (kernel_numeric.hpp) give one element
// at a time. The hardware quiets a signalling NaN and keeps a NaN's payload where the scalar
// forms keep the signal and write the canonical half NaN; so a group of 8 holding a NaN takes the
// scalar forms, and every result, NaNs included, is the same on every host.
//
// Thread-safety: pure functions; the instruction set is detected once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace aopt::sim::kernel {

// dst[i] = f16_to_f32(src[i]) for i < n.
void halves_to_floats(const uint16_t* src, float* dst, size_t n);
// dst[i] = f32_to_f16(src[i]) for i < n: round to nearest even.
void floats_to_halves(const float* src, uint16_t* dst, size_t n);

}  // namespace aopt::sim::kernel
