// What the cube instructions (kernel_cube.cpp, kernel_cube_img2col.cpp) share about their
// operands: the fractal geometry, the check that an operand sits in a memory the documentation
// allows, and the trace instruction each records.
#pragma once

#include <cstdint>
#include <initializer_list>

#include "aopt_sim/kernel/runtime_api.h"
#include "kernel_state.hpp"

namespace aopt::sim::kernel {

constexpr uint32_t fractal_bytes = 512;
constexpr uint32_t c0_bytes = 32;
constexpr uint32_t cube_rows = 16;  // rows of an A fractal, columns of a B fractal

inline uint32_t ceil_div(uint32_t a, uint32_t b) {
  return (a + b - 1) / b;
}

mem_space space_of_ref(const state& s, const aopt_sim::rt::local_ref& t);

// Fails (bad_argument, or ub_out_of_bounds for a tensor without a buffer) unless `t` is in one
// of `allowed`; `positions` names them for the message.
void require_space(const state& s, const aopt_sim::rt::local_ref& t,
                   std::initializer_list<mem_space> allowed, const char* api,
                   aopt_sim::rt::call_site site, const char* operand, const char* positions);

// Offset of `t` in its memory, for messages.
uint32_t local_offset(const state& s, const aopt_sim::rt::local_ref& t);

instruction cube_instruction(pipe on, op_class cls, const char* api, aopt_sim::rt::call_site site);

}  // namespace aopt::sim::kernel
