// aopt simulator: the tiling structs of AscendC's library APIs that a kernel reads from its
// tiling data (`kernel_tiling/kernel_tiling.h` on the kernel side), and a host tiling class
// holds as a field (`TILING_DATA_FIELD_DEF_STRUCT(UnPadTiling, unpadTilingData)`).
//
// CANN generates these structs and does not document their fields; the simulator defines its
// own, filled by its host tiling functions (aopt_sim/host_library_tiling.h) and read by its
// kernel APIs (UnPad in aopt_sim/kernel/vector_math.h). One definition serves host and kernel,
// so the bytes the host saves are the bytes the kernel reads. The struct is named as CANN names
// it in every scope a kernel or tiling function looks for it: AscendC::tiling, the global
// namespace (kernel side) and optiling (host side).
#pragma once

#include <cstdint>

namespace AscendC {
namespace tiling {

// UnPad of a [srcHeight, srcWidth] tensor (UnPadTilingFunc fills it from the source shape).
struct UnPadTiling {
  uint32_t srcHeight = 0;
  uint32_t srcWidth = 0;
  uint32_t tmpBufferBytes = 0;
  uint32_t typeSize = 0;
};

// Pad of a [srcHeight, srcWidth] tensor (PadTilingFunc fills it from the source shape).
struct PadTiling {
  uint32_t srcHeight = 0;
  uint32_t srcWidth = 0;
  uint32_t srcOriWidth = 0;
  uint32_t tmpBufferBytes = 0;
  uint32_t typeSize = 0;
};

}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::PadTiling;
using AscendC::tiling::UnPadTiling;

namespace optiling {
using AscendC::tiling::PadTiling;
using AscendC::tiling::UnPadTiling;
}  // namespace optiling
