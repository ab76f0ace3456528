// What an integer constant of a tiling program does, judged from how it is used (the names
// vocabulary of tiling_names.hpp is the fallback): the levers template synthesis marks.
//
// A light data-flow over the statements of the tiling program (comments masked): every
// assignment `[type] v = expr;` / `v op= expr;` makes v depend on the identifiers of expr, and
// the constants reaching a variable are closed transitively. Then, for a constant C:
//   core cap     C sits in a statement with a core-count query (GetCoreNumAiv, GetCoreNum,
//                GetCoreNumAic) or a variable holding one (a min/max or a comparison), or
//                directly in the argument of SetBlockDim;
//   buffer depth C reaches a tiling-data field F (`tiling.set_F(...)`, `tiling.F = ...`) and
//                the kernel passes F, or a variable derived from it, as the `num` (second
//                argument) of InitBuffer. With a kernel given, a constant named like a buffer
//                count that reaches no InitBuffer num is not a buffer depth (it counts queues);
//   tile size /  C, not named for any role, reaches a field named like a tile length / count
//   tile count   (tileLength, tileNum, ...) and is never a divisor (`x / C`, `x / (A * C)`:
//                elements per block, a count of queues);
//   UB budget    C sits in a statement with the UB capacity (the variable GetCoreMemSize fills)
//                and is named like a UB size or limit.
// Otherwise the name decides (classify_tiling_name). A name that says the constant is fixed
// (alignment, reserve, element size, ...; see never_tunable_name) vetoes every usage role, and so
// does the first argument of a context accessor (GetInputShape, GetInputTensor, GetOutputShape,
// GetAttrPointer, ...): an index into the operator's signature, however it is named. Each role
// comes with the reason, quoting the statement that gave it.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "agent/kernel_text/tiling_names.hpp"

namespace aopt::agent {

struct constant_usage {
  tiling_role role = tiling_role::none;
  std::string why;  // "core cap: compared with the core count in `...`"; why not, for none
  // A tile_size that is a cube base tile (SetFixSplit's baseM/baseN/baseK): whole fractals of
  // 16, so its domain is the multiples of 16 the cube takes.
  bool cube_tile = false;
};

// The usage of each of `names` in `tiling`; `kernel` (may be empty) tells buffer depths from
// queue counts.
std::map<std::string, constant_usage> classify_by_usage(const std::string& tiling,
                                                        const std::string& kernel,
                                                        const std::vector<std::string>& names);

// The identifiers the kernel's InitBuffer `num` arguments (buffer depths) are computed from,
// transitively: `pipe.InitBuffer(q, bufferNum, ...)` after `bufferNum = tiling.bufferNum` gives
// {bufferNum, tiling, ...}. Empty for an empty kernel.
std::set<std::string> buffer_depth_sources(const std::string& kernel);

// The identifiers the kernel's InitBuffer lengths (the last argument) are computed from,
// transitively: the tiling fields a buffer is sized by. Empty for an empty kernel.
std::set<std::string> buffer_length_sources(const std::string& kernel);

}  // namespace aopt::agent
