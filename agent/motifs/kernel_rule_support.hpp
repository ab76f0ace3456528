// Pieces shared by the two kernel rule libraries (rewind_rules, optimization_rules): the
// element-wise vector APIs a scalar loop can stand for, operand rewriting and statement tests.
//
// Thread-safety: immutable data and pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

// Indentation added inside a generated loop body.
inline constexpr const char* kIndentUnit = "    ";
// Size of one chunk of the chunked_copies de-optimization: 256 bytes, 32-byte aligned for every
// element type and far below the 16 KiB a DMA transfer needs for peak bandwidth.
inline constexpr int kChunkBytes = 256;

struct elementwise_op {
  std::string symbol;           // "+", "-", "*", "/", "max", "min"
  bool scalar_operand = false;  // Adds/Muls/Maxs/Mins: the third argument is a scalar
};

// Add, Sub, Mul, Div, Max, Min, Adds, Muls, Maxs, Mins.
const std::map<std::string, elementwise_op>& elementwise_apis();

// The type scalar code computes `element_type` values in: float for half/float/bfloat16,
// int64_t for integers; nullopt for anything else.
std::optional<std::string> compute_type(const std::string& element_type);

// "x" -> "x[off]", "xGm[i * n]" -> "xGm[(i * n) + off]"; nullopt for other operand shapes.
std::optional<std::string> shifted_operand(const std::string& operand, const std::string& offset);

// A statement that only calls a member function of the kernel ("CopyIn(i, count);").
bool is_stage_call(const kernel_facts& facts, text_range statement);

// Rows-per-tile style names (ROWS_PER_TILE, rowsPerTile).
bool is_rows_per_tile(const std::string& name);

}  // namespace aopt::agent
