// Both directions of the cube's fused-epilogue motif (motif_library.hpp): an element-wise
// epilogue the fixpipe can apply on its way out of L0C (ReLU) is applied there, instead of
// writing the product to GM and passing over it again.
//
//   gm_epilogue_edits     (rewind) `p.reluEn = true;` for a `Fixpipe(dst, src, p)` into a
//                         GlobalTensor of half, bfloat16_t or float -> `p.reluEn = false;`, and
//                         right after the Fixpipe a full barrier and a scalar pass over the tile
//                         it wrote (p.mSize rows of p.nSize, p.dstStride apart) that reads each
//                         element back from GM and writes 0 over the negative ones, then
//                         DataCacheCleanAndInvalid: the tile goes through GM twice more
//   fused_epilogue_edits  (optimization) a Fixpipe into GM whose params do not enable ReLU,
//                         followed (after barriers, and a GlobalTensor naming the Fixpipe's
//                         destination) by a loop that reads that destination with GetValue and
//                         writes zero into it with SetValue, with a comparison to 0, and the
//                         cache flush of that tensor -> the pass and what leads to it go, and
//                         the params enable ReLU (`false` -> `true`, or the assignment added
//                         before the Fixpipe)
//
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "agent/kernel_text/kernel_edits.hpp"
#include "agent/kernel_text/kernel_facts.hpp"

namespace aopt::agent {

std::vector<text_edit> gm_epilogue_edits(const kernel_facts& f);
std::vector<text_edit> fused_epilogue_edits(const kernel_facts& f);

}  // namespace aopt::agent
