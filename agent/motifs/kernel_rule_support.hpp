// Pieces shared by the kernel rule libraries (rewind and optimization edits): the element-wise
// vector APIs a scalar loop can stand for, operand rewriting, statement tests and removal.
//
// Thread-safety: immutable data and pure functions.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
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

// `this->member = value;` where the member names a tile size or a rows-per-tile count and the
// value is one identifier (the host's tiling field, a parameter): the statements that set the
// kernel's tile, which the small-tile rewind and the tile split both rewrite.
struct tile_member_assignment {
  std::string member;
  std::string value;
  bool rows = false;  // a rows-per-tile count, not an element tile
  size_t at = 0;      // where the statement starts
  text_range value_range;
};
std::vector<tile_member_assignment> tile_member_assignments(const std::string& masked);

// Text without whitespace and without `static_cast<T>` prefixes: the shape a pattern sees.
std::string shape_of(const std::string& text);

// `if (b + 1 == GetBlockNum()) { len = total - off; }` (`statement` in shape_of form), with
// `block_idx`, `offset` and `length` ("this->" optional) its names: the last core takes what the
// other cores of a split leave, which keeps a naive split correct.
bool last_core_takes_remainder(const std::string& statement, const std::string& block_idx,
                               const std::string& offset, const std::string& length);

// The pipe a barrier statement waits for ("ALL", "V", "MTE2", ...), however it is spelled
// (`PipeBarrier<PIPE_X>();`, `AscendC::PipeBarrier<PIPE_X>();`, `pipe_barrier(PIPE_X);`);
// empty when `s` is no barrier.
std::string barrier_pipe(const std::string& masked, text_range s);

// The variables `text` declares or changes: `x = `, `x += `, `x++`, `++x`, ...
std::set<std::string> assigned_in(const std::string& text);

// The text `r` covers.
std::string slice(const std::string& text, text_range r);

// The statement `s` of masked text is a barrier on every pipe (barrier_pipe "ALL").
bool is_full_barrier(const std::string& masked, text_range s);

// The call `api` when it is the whole statement `s`.
std::optional<call_site> whole_call(const kernel_facts& f, text_range s, const std::string& api);

// The edit removing statement `s`, together with its line when it has the line to itself.
text_edit remove_statement(const std::string& masked, text_range s);

// "static_cast<uint32_t>(n)" -> "n".
std::string unwrap_count(const std::string& text);

// A counted loop `for (T i = 0; i < n; <step>)`: the variable, the bound and the step text.
struct counted_loop {
  std::string variable;
  std::string bound;
  std::string step;  // "1" for ++ forms, else the += operand
};
// nullopt when `loop` is no such loop (a while loop, another start, another condition).
std::optional<counted_loop> read_counted_loop(const kernel_facts& f, const loop_range& loop);

// The variable a `for` loop's header declares, `for (T v = ...`: its type and its name; nullopt
// for any other loop.
struct loop_declaration {
  std::string type;
  std::string variable;
};
std::optional<loop_declaration> declared_loop_variable(const kernel_facts& f,
                                                       const loop_range& loop);

// `text` without outer `static_cast<T>(...)` wrappers and enclosing parentheses.
std::string unwrap(std::string text);

// A loop-invariant scalar expression: mentions neither the loop variable `i` nor GetValue.
bool invariant_scalar(const std::string& expr, const std::string& i);

// `lhs op rhs` split at the last top-level + or - (else * or /), after unwrap.
struct binary_split {
  std::string lhs;
  char op = 0;
  std::string rhs;
};
std::optional<binary_split> split_binary(const std::string& expr);

}  // namespace aopt::agent
