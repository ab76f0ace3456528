// Heuristic evolvable-template synthesis: turns a tiling program T without an EVOLVE-BLOCK into
// one whose tiling-shaping integer constants are marked as tunables (the paper's "Evolvable
// Template Synthesis", done by rules instead of an LLM).
//
// Candidates, found outside comments:
//   * `[static] const|constexpr <integer type> NAME = <integer literal>;`
//   * `#define NAME <integer literal>` (skipped when NAME appears in a preprocessor condition)
//   * an integer literal passed to `SetBlockDim(...)`, and the Matmul tiling's `SetDim(...)`
//     (a core cap) and `SetFixSplit(baseM, baseN, baseK)` (each positive multiple of 16 a base
//     tile: BASE_M, BASE_N, BASE_K), each given a fresh constant
// A constant qualifies when its value is positive and classify_by_usage() (tiling_usage.hpp:
// how the tiling program, and the kernel when given, use it; the name as fallback) gives it a
// role. Each qualifying declaration is rewritten in place as
// `constexpr <type> NAME = <value>;  // tunable: <domain>  <why>` and every run of consecutive
// rewritten lines is wrapped in `// EVOLVE-BLOCK-START` / `// EVOLVE-BLOCK-END` with the run's
// indentation. A `#define` becomes a constexpr of the literal's own type (int, unsigned, long,
// ...), so expressions using it keep their meaning. A literal block dim gets a fresh constant
// (BLOCK_DIM, or BLOCK_DIM2... if taken) declared just before the statement.
//
// Domains, by role:
//   block_dim   range [1, max(cores, value)]
//   buffer_num  choice {1, 2} (plus the value itself when it is neither)
//   tile_size   a cube base tile (SetFixSplit's, literal or named): choice {16, 32, 64, 128, 256};
//               otherwise pow2 [max(1, value/16), value*16] for a power of two; otherwise
//               range [s, 4*value] step s with s the largest power of two dividing value (<= 256)
//   tile_count  range [1, max(8, 4*value)]
//   ub_size     range [r, value] step s, r about value/4, s = 32 when value is a multiple of 32
// Computed levers (issue 35), found by reading the tiling function with libclang
// (tiling_dataflow.hpp), each turned into a value the search sets without changing the
// operator's results at the start value:
//   core count  `p.GetCoreNumAiv()` becomes `(CORE_COUNT < (p.GetCoreNumAiv()) ? CORE_COUNT :
//               (p.GetCoreNumAiv()))` with CORE_COUNT = cores, range [1, cores]: the platform's
//               count capped by the search;
//   UB budget   after `p.GetCoreMemSize(UB, ubSize);` the line `ubSize = ubSize / 64 *
//               UB_SHARE_64THS;` with UB_SHARE_64THS = 64, range [16, 64]: the share of the UB
//               the tiling may divide among its buffers, from a quarter to all of it;
//   buffer depth  after `uint32_t doubleBuffer = <computed>;`, whose variable the function
//               hands to a tiling field the kernel passes as InitBuffer's num, the line
//               `if (BUFFER_DEPTH != 0) doubleBuffer = BUFFER_DEPTH;` with BUFFER_DEPTH = 0,
//               choice {0, 1, 2}: 0 keeps the computed depth, 1 or 2 overrides it.
//   elements per loop  after the last write of a quotient of the UB size the kernel is
//               given (`alignedTaskNumPerLoop = taskNumPerLoop / B * B;`), the line `if (TILE_CAP
//               != 0 && v > TILE_CAP [&& TILE_CAP >= B]) v = TILE_CAP;` with TILE_CAP = 0, choice
//               {0, 64, ..., 8192}: powers of two (multiples of any power-of-two block up to 64)
//               that only lower the value the function bounds by the UB; 0 keeps it;
//   alignment block  where that quotient is rounded down to a block B (`x / B * B`,
//               `FloorAlign(x, B)`), the line `if (v >= TILE_ALIGN_MULT * B) v = v /
//               (TILE_ALIGN_MULT
//               * B) * (TILE_ALIGN_MULT * B);`, TILE_ALIGN_MULT = 1, choice {1, 2, 4, 8}: a
//               multiple of B never above the bound;
//   core split  after the last write of the work per core (`perCore = Ceil(total, coreNum);`)
//               whose quotient the block dim is (`SetBlockDim(Ceil(total, perCore))`), the line
//               `perCore = (perCore + SPLIT_GRAIN - 1) / SPLIT_GRAIN * SPLIT_GRAIN;`, SPLIT_GRAIN =
//               1, choice {1, 2, ..., 128}: the share grows to whole grains, the cores used and
//               the last core's rest follow. A share the block dim does not follow (the
//               bigCore/smallCore style) is not made one; looked_at says why.
// Each such tunable's note names the expression it came from ("core count: caps
// `ascendcPlatform.GetCoreNumAiv()`").
// Deterministic: the same source always gives the same template.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/kernel_text/tiling_names.hpp"
#include "agent/kernel_text/tunables.hpp"
#include "base/status.hpp"

namespace aopt::agent {

struct synthesis_options {
  int64_t cores = 40;  // vector cores of the target: upper bound of block-dim ranges
  // Reading computed levers with libclang: the headers the tiling program includes (the
  // shim's), and the name it is parsed under (its real path resolves its relative includes).
  bool read_dataflow = true;
  std::vector<std::string> include_dirs = default_tiling_include_dirs();
  std::string file_name = "tiling.cpp";
  // The kernel's real path, when known: the headers beside it that it includes (a split
  // kernel's class) are read with it.
  std::string kernel_file_name = {};

  static std::vector<std::string> default_tiling_include_dirs();
};

// A constant synthesis made tunable, and why.
struct synthesized_lever {
  std::string name;
  tiling_role role = tiling_role::none;
  std::string why;
  std::string expression = {};  // a computed lever: the source expression it came from
};

struct synthesized_template {
  std::string source;             // T with EVOLVE-BLOCK(s)
  std::vector<tunable> tunables;  // parsed back from `source`
  bool synthesized = false;       // false: the source already had tunables
  std::vector<synthesized_lever> levers;
  std::vector<std::string> looked_at;  // constants not taken, each with the reason
};

// A source that already has tunables (an EVOLVE-BLOCK or annotations) is returned unchanged
// with them. `kernel` (may be empty) tells buffer depths from queue counts.
// failed_precondition when no lever is found (nothing to tune), naming every constant looked at
// and why it was not taken; invalid_argument when existing annotations are malformed.
result<synthesized_template> synthesize_template(const std::string& tiling,
                                                 const synthesis_options& options = {},
                                                 const std::string& kernel = {});

}  // namespace aopt::agent
