// Feasibility before the device (issue 16): the trusted judgement of what a candidate's tiling
// function decided when run alone (npu::tiling_prober), so that a candidate that cannot work
// costs no kernel build and no device evaluation.
//
// judge_tiling rejects, with a kind the mutator learns regions from and a one-line message:
//   compile_error   the tiling program does not build
//   tiling_crash    the probe process died, hung or delivered garbage
//   tiling_failed   the tiling function threw or returned a status other than GRAPH_SUCCESS
//   bad_block_dim   SetBlockDim outside 1..65535
//   bad_workspace   more than 1 GiB of workspace
// and, as far as the tiling data shows it (its layout read from the tiling header; the tile
// length is the first field named like a tile size (tiling_names.hpp) with a length/size word,
// tileLength or tileBytes, not tokensPerTile; the buffer depth is the field the kernel passes
// to InitBuffer as `num`):
//   uncovered       a tile length of 0, or blocks x per-block length (blockLength, *PerCore)
//                   short of the total length (total*) the tiling data itself states
//   ub_overflow     tile length x buffer depth x bytes of one element summed over the tensors as
//                   large as the largest one exceeds the profile's UB (a lower bound of what the
//                   kernel allocates: one tile-sized buffer per such tensor)
//   misaligned      a tile length that is not a whole number of 32-byte blocks of the smallest
//                   element type, unless the kernel copies tails with DataCopyPad
// A probe that could not run (the machine, not the candidate) judges nothing: feasible.
//
// Thread-safety: pure functions; the screen calls its prober (thread-safe) and nothing else.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "agent/kernel_text/tiling_data_layout.hpp"
#include "npu/op_package.hpp"
#include "npu/tiling_prober.hpp"

namespace aopt::agent {

struct feasibility_verdict {
  std::string kind;  // empty: worth evaluating
  std::string message;
  bool feasible() const { return kind.empty(); }
};

// What the trusted side knows of the operator, independent of the candidate.
struct feasibility_facts {
  std::string tiling_func = "TilingFunc";
  uint64_t ub_bytes = 0;                // 0: no UB check
  uint64_t tile_bytes_per_element = 0;  // summed over the tensors as large as the largest one
  uint32_t element_bytes = 0;           // the smallest element size among them (0: no 32-byte rule)
  bool kernel_pads_tails = false;       // the kernel uses DataCopyPad
  std::set<std::string> buffer_depth_names;  // identifiers the kernel's InitBuffer nums come from
  std::optional<tiling_data_layout> layout;  // nullopt: the tiling data is not read
};

// The facts of `op` with kernel `kernel` on a chip with `ub_bytes` of UB.
feasibility_facts facts_of(const npu::op_package& op, const std::string& kernel, uint64_t ub_bytes);

feasibility_verdict judge_tiling(const npu::tiling_probe_result& probe,
                                 const feasibility_facts& facts);

// Probes `tiling` with `kernel` of `op` and judges it.
using tiling_screen = std::function<feasibility_verdict(
    const npu::op_package& op, const std::string& tiling, const std::string& kernel)>;

// A screen over `prober` for a chip with `ub_bytes` of UB. REQUIRES: prober not null.
tiling_screen make_probe_screen(std::shared_ptr<npu::tiling_prober> prober, uint64_t ub_bytes);

}  // namespace aopt::agent
