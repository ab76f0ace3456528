// Where a tiling program computes the quantities that decide its schedule, read with libclang
// (issue 35): real tiling programs rarely keep their levers in named constants. The core count
// comes from the platform (`GetCoreNumAiv()`), the UB budget from `GetCoreMemSize(UB, var)`;
// both are computed values that template synthesis can turn into values the search sets.
//
// The source is parsed as C++17 against `include_dirs` (the shim's headers) under the name
// `file_name` (so that the operator's own relative includes resolve when it names the real
// file). A parse with errors still yields the calls clang could resolve; a call on a type
// clang could not resolve is not found (no lever, never a wrong one).
//
//   core_count  every call of a member function named GetCoreNumAiv (or GetCoreNum,
//               GetCoreNumAic) with no arguments: `expression` is the call's text;
//   ub_bytes    every statement `x.GetCoreMemSize(<...UB...>, var)`: `variable` is the variable
//               the UB size is written to, `statement_end` the offset just past the
//               statement's ';';
//   buffer_depth  a local, non-const variable the function computes and hands to a tiling
//               setter `t.set_F(var)` whose field F is in `depth_fields` (the fields the
//               kernel passes as InitBuffer's num: tiling_usage.hpp, buffer_depth_sources):
//               `variable` is it, `expression` and [statement_begin, statement_end) its
//               declaration (alone on its statement; the ';' ends its line).
//   tile_elements  a local integer the function divides out of the UB size (a quotient whose
//               dividend comes from GetCoreMemSize's variable, directly or through locals) and
//               hands to a tiling setter: the elements (or rows, tasks) one loop of the kernel
//               takes. `alignment` is the block it is rounded down to when the function does
//               so (`x / A * A`, `FloorAlign(x, A)`: A's text), empty otherwise. Of such
//               quotients derived from one another only the first is taken. Also a local
//               integer handed to a setter whose field is in `length_fields` (the fields the
//               kernel sizes an InitBuffer by: tiling_usage.hpp, buffer_length_sources) that the
//               function computes from constants alone (no local feeds it); its writes may sit in
//               branches of a statement of the body, which [statement_begin, statement_end) then
//               is. `sized_by` says which.
//   core_split  a local integer the function divides the work by the core count into
//               (`Ceil(total, coreNum)`, `(total + coreNum - 1) / coreNum`, `total / coreNum`)
//               and hands to a tiling setter, where the cores used are in turn derived from
//               it (SetBlockDim gets a quotient by it): the per-core share is free to grow.
//               A share the cores used do not follow (the bigCore/smallCore style, where
//               SetBlockDim gets the core count and the kernel computes offsets from
//               `total % coreNum`) is reported as `not_lever` with the reason.
// For tile_elements and core_split, every write of `variable` is a statement of the function's
// body (not nested in a branch) and none follows a read of it: [statement_begin,
// statement_end) is the last write, after which a line can set the variable; `expression` is
// that statement's text.
//

// Offsets are bytes into `source`. Thread-safety: pure function (each call has its own index).
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::agent {

enum class computed_lever_kind {
  core_count,
  ub_bytes,
  buffer_depth,
  tile_elements,
  core_split,
  not_lever
};

struct computed_lever {
  computed_lever_kind kind = computed_lever_kind::core_count;
  std::string expression;  // the source text the value comes from
  size_t begin = 0;        // [begin, end): the expression's bytes in the source
  size_t end = 0;
  size_t statement_begin = 0;  // the statement holding it (a declaration or an expression)
  size_t statement_end = 0;    // just past its ';'
  std::string variable;        // ub_bytes: the variable the UB size is written to
  std::string variable_type;   // ub_bytes: its type as clang spells it, e.g. "uint64_t"
  std::string alignment;       // tile_elements: the block it is rounded down to, or empty
  std::string sized_by;        // tile_elements: what makes it a tile (a UB quotient, a length)
  std::string why_not;         // not_lever: why the quantity is not made a lever
};

// invalid_argument when libclang cannot parse at all (no translation unit).
result<std::vector<computed_lever>> find_computed_levers(
    const std::string& source, const std::vector<std::string>& include_dirs,
    const std::string& file_name = "tiling.cpp", const std::set<std::string>& depth_fields = {},
    const std::set<std::string>& length_fields = {});

}  // namespace aopt::agent
