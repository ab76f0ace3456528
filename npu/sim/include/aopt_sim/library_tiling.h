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

// SoftMax / SimpleSoftMax of an [srcM, srcK] tensor (SoftMaxTilingFunc fills it from the source
// shape). The fields are the documented struct's; the simulator's kernel reads srcM and srcK and
// fills the rest with the one split it computes in (the whole tensor, one 32-byte block of max
// and sum per row).
struct SoftMaxTiling {
  uint32_t srcM = 0;
  uint32_t srcK = 0;
  uint32_t srcSize = 0;
  uint32_t outMaxM = 0;
  uint32_t outMaxK = 0;
  uint32_t outMaxSize = 0;
  uint32_t splitM = 0;
  uint32_t splitK = 0;
  uint32_t splitSize = 0;
  uint32_t reduceM = 0;
  uint32_t reduceK = 0;
  uint32_t reduceSize = 0;
  uint32_t rangeM = 0;
  uint32_t tailM = 0;
  uint32_t tailSplitSize = 0;
  uint32_t tailReduceSize = 0;
};

// LayerNorm of a [B, S, H] tensor (GetLayerNormNDTilingInfo fills it from the source shape).
// The fields are the documented struct's; the simulator's kernel reads bLength, sLength, hLength
// and originalHLength, and the rest describes its one pass over the whole tensor.
struct LayerNormTiling {
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  uint32_t inputXSize = 0;
  uint32_t meanVarSize = 0;
  uint32_t numberOfTmpBuf = 0;
  uint32_t meanTmpTensorPos = 0;
  uint32_t meanTmpTensorSize = 0;
  uint32_t varianceTmpTensorPos = 0;
  uint32_t varianceTmpTensorSize = 0;
  uint32_t tmpBufSize = 0;
  uint32_t oneTmpSize = 0;
  uint32_t firstTmpStartPos = 0;
  uint32_t secondTmpStartPos = 0;
  uint32_t thirdTmpStartPos = 0;
  uint32_t loopRound = 0;
  uint32_t inputRoundSize = 0;
  uint32_t inputTailSize = 0;
  uint32_t inputTailPos = 0;
  uint32_t meanVarRoundSize = 0;
  uint32_t meanVarTailSize = 0;
  uint32_t meanVarTailPos = 0;
  uint32_t bshCurLength = 0;
  uint32_t bsCurLength = 0;
  uint32_t lastDimValueBack = 0;
};

// RmsNorm of a [B, S, H] tensor (GetRmsNormTilingInfo fills it from the source shape and the
// original shape). The fields are the documented struct's; the simulator's kernel reads bLength,
// sLength, hLength and originalHLength, and the rest describes its one pass over the whole tensor.
struct RmsNormTiling {
  uint32_t bLength = 0;
  uint32_t sLength = 0;
  uint32_t hLength = 0;
  uint32_t originalHLength = 0;
  float reciprocalOfHLength = 0;
  uint32_t mainBshLength = 0;
  uint32_t mainBsLength = 0;
  uint32_t mainBsLengthAlign = 0;
  uint32_t loopRound = 0;
  uint32_t inputTailPos = 0;
  uint32_t tailBshLength = 0;
  uint32_t tailBsLength = 0;
};

}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::LayerNormTiling;
using AscendC::tiling::PadTiling;
using AscendC::tiling::RmsNormTiling;
using AscendC::tiling::SoftMaxTiling;
using AscendC::tiling::UnPadTiling;

namespace optiling {
using AscendC::tiling::LayerNormTiling;
using AscendC::tiling::PadTiling;
using AscendC::tiling::RmsNormTiling;
using AscendC::tiling::SoftMaxTiling;
using AscendC::tiling::UnPadTiling;
}  // namespace optiling
