// The edits of the tile-grid core split motif (motif_library.hpp "grid_core_split"), both ways.
// A kernel that walks a grid of tiles (a matmul's baseM x baseN tiles of c, a vector kernel's
// rows x tiles) can hand the cores whole lines of the grid or single tiles round-robin. With
// fewer lines than cores, the first leaves cores idle and gives the others a whole line each;
// the second spreads the tiles over every core.
//
//   line_split_edits (rewind)    a core-strided loop over the flattened grid,
//                                `for (T t = GetBlockIdx(); t < E; t += GetBlockNum())`, whose
//                                body reads the tile's line and column as `t / D` and `t % D`
//                                -> the cores take whole columns:
//                                `for (T c = GetBlockIdx(); c < D; c += GetBlockNum())
//                                   for (T r = 0; r < (E) / D; r++) { T t = r * D + c; ... }`
//   grid_split_edits (optimize)  a core-strided loop over `r < R` whose whole body is a counted
//                                loop `for (T c = 0; c < C; c++)` with C independent of r
//                                -> one core-strided loop over the R x C grid, r and c derived
//                                from its index
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> line_split_edits(const kernel_facts& f);
std::vector<text_edit> grid_split_edits(const kernel_facts& f);

}  // namespace aopt::agent
