// What a tiling constant is, judged from its name: the vocabulary shared by template synthesis
// (which constants become tunables, with which domain), the heuristic mutator (which values must
// stay 32-byte aligned) and the kernel rules (which kernel constants are tile sizes).
//
// A name is split into words (identifier_words) and matched against word sets:
//   block_dim   "block" with dim/num/count, or "core"/"cores" with num/count/number/used/max
//               (BLOCK_DIM, blockDim, CORE_NUM, usedCoreNum, MAX_CORES)
//   buffer_num  buffer/buf/slot/pingpong with num/count/cnt/number (BUFFER_NUM, bufNum)
//   ub_size     "ub" with size/bytes/capacity/len/length (UB_SIZE, ubSize)
//   tile_count  tile/chunk/loop with num/count/cnt/number/times (TILE_NUM, loopCount), or
//               rows/cols with tile (ROWS_PER_TILE)
//   tile_size   tile/chunk with len/length/size/bytes/elems, or tile alone (TILE_LENGTH, tileSize)
// Names holding align/reserve/elem/depth/mask/repeat/stride/offset/index/epsilon/per/bits words
// are never tiling constants (ALIGN_NUM, UB_RESERVE, QUEUE_BYTES_PER_ELEM, QUEUE_DEPTH,
// MAX_REPEAT, BYTES_PER_BLOCK), except per-tile ratios (ROWS_PER_TILE, TILES_PER_CORE: tile
// counts).
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>

namespace aopt::agent {

enum class tiling_role { none, block_dim, buffer_num, ub_size, tile_count, tile_size };

const char* to_string(tiling_role role);

tiling_role classify_tiling_name(std::string_view name);

// The name says the constant is a fixed quantity (an alignment, a reserve, an element size, a
// ratio, ...) that no tiling search should change.
bool never_tunable_name(std::string_view name);

}  // namespace aopt::agent
