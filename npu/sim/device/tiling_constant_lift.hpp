// One build for tilings that differ only in their tunable values (issue 33: compile less).
//
// Stage I's mutator changes the values of a tiling program's tunables, the integer constants of
// its EVOLVE-BLOCK, and nothing else; each such candidate used to recompile and relink the host
// unit. Lifting rewrites every declaration of the block of the form
//
//   [static] constexpr|const <integer type> NAME = <integer literal>;
//
// into a reference to a slot the process fills at start-up (aopt_sim/lifted_constants.h):
//
//   static const <integer type>& NAME = aopt_lifted::slot<<integer type>>[k];
//
// and returns the values apart. Tilings that differ only in those values then have the same
// lifted text, so the object cache and the executable cache serve all but the first, and the
// values reach the process in AOPT_SIM_LIFTED (npu/sim/runtime/lifted_values.hpp).
//
// The rewrite keeps the program's meaning or does not compile: the constant keeps its type and
// value, its reference is constant-initialized (no initialization order changes), and every use
// that needs a constant expression (an array bound at namespace scope, a template argument, a
// case label, a static_assert, a narrowing brace) no longer compiles, when the caller builds the
// original instead (sim_device). Only literals are lifted, never an expression, a negative
// number, `auto` or a type outside the integer types below; line numbers are kept. The blocks
// are candidate code read in aopt's own process, so each is lexed alone as C, where nothing can
// make the parse costly; a block with a preprocessor directive or a line continuation is left
// as written.
//
// Thread-safety: lift_tiling_constants is a pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aopt::npu {

struct lifted_tiling {
  std::string source;              // the tiling program, its block's literals replaced by slots
  std::vector<uint64_t> values;    // the value of slot k
  std::vector<std::string> names;  // the constant of slot k
};

// nullopt when the program has no EVOLVE-BLOCK or nothing in it can be lifted.
std::optional<lifted_tiling> lift_tiling_constants(const std::string& tiling_source);

}  // namespace aopt::npu
