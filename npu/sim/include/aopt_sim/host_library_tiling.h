// aopt simulator, host side: the tiling functions of the AscendC library APIs whose kernel side
// the simulator provides (UnPad), filling the structs of aopt_sim/library_tiling.h that a tiling
// class holds as a field (`TILING_DATA_FIELD_DEF_STRUCT(UnPadTiling, unpadTilingData)`).
//
//   GetUnPadMaxMinTmpSize(platform, srcShape, typeSize, max, min)  the temporary UB UnPad
//       needs: the simulator's UnPad uses none, so one 32-byte block, as the math library's
//       helpers report (aopt_sim/host_math_tmp_size.h says why)
//   UnPadTilingFunc(srcShape, stackBufferSize, typeSize, tiling)  the [height, width] source
//       shape (a 2-D shape, as documented) and the buffer size, for the kernel's UnPad
//   GetPadMaxMinTmpSize(srcShape, typeSize, max, min)  the temporary UB Pad needs: one block
//   PadTilingFunc(srcShape, oriSrcShape, stackBufferSize, typeSize, tiling)  the [height,
//       width] source shape and the valid width of its rows (oriSrcShape's), for the kernel's Pad
//   GetSoftMaxMaxTmpSize / GetSoftMaxMinTmpSize(srcShape, dataTypeSize, isReuseSource)  the
//       temporary UB SoftMax and SimpleSoftMax need: one 32-byte block, as above
//   SoftMaxTilingFunc(srcShape, dataTypeSize, localWorkSpaceSize, tiling)  the [m, k] view of
//       the source shape (m the product of the leading axes, k the last) for the kernel's
//       SoftMax and SimpleSoftMax, computed in one split
//   GetLayerNormMaxMinTmpSize(srcShape, typeSize, isReuseSource, max, min)  the temporary UB
//       LayerNorm needs: one 32-byte block, as above
//   GetLayerNormNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, tiling)  the
//       [B, S, H] source shape for the kernel's LayerNorm, in one pass (GetLayerNormNDTillingInfo,
//       the older spelling, too)
//   GetRmsNormMaxMinTmpSize(srcShape, typeSize, max, min, isBasicBlock)  the temporary UB
//       RmsNorm needs: one 32-byte block, as above; true
//   GetRmsNormTilingInfo(srcShape, originSrcShape, stackBufferByteSize, typeSize, tiling,
//       isBasicBlock)  the [B, S, H] source shape and the valid length of its rows
//       (originSrcShape's last axis) for the kernel's RmsNorm, in one pass; false when H is not
//       32-byte aligned or the valid length exceeds it
#pragma once

#include <cstdint>

#include "aopt_sim/host_math_tmp_size.h"
#include "aopt_sim/library_tiling.h"
#include "graph/tensor.h"
#include "tiling/platform/platform_ascendc.h"

namespace AscendC {

inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC& ascendcPlatform,
                                  const ge::Shape& srcShape, const uint32_t typeSize,
                                  uint32_t& maxValue, uint32_t& minValue) {
  static_cast<void>(ascendcPlatform);
  static_cast<void>(srcShape);
  static_cast<void>(typeSize);
  detail::sim_tmp_size(maxValue, minValue);
}

inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize,
                            const uint32_t typeSize, tiling::UnPadTiling& tiling) {
  tiling.srcHeight = static_cast<uint32_t>(srcShape.GetDimNum() > 1 ? srcShape.GetDim(0) : 1);
  tiling.srcWidth =
      static_cast<uint32_t>(srcShape.GetDimNum() > 1 ? srcShape.GetDim(1) : srcShape.GetDim(0));
  tiling.tmpBufferBytes = stackBufferSize;
  tiling.typeSize = typeSize;
}

inline void GetPadMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                uint32_t& maxValue, uint32_t& minValue) {
  static_cast<void>(srcShape);
  static_cast<void>(typeSize);
  detail::sim_tmp_size(maxValue, minValue);
}

inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape,
                          const uint32_t stackBufferSize, const uint32_t typeSize,
                          tiling::PadTiling& tiling) {
  auto rows_cols = [](const ge::Shape& shape, uint32_t& rows, uint32_t& cols) {
    const bool two = shape.GetDimNum() > 1;
    rows = static_cast<uint32_t>(two ? shape.GetDim(0) : 1);
    cols = static_cast<uint32_t>(two ? shape.GetDim(1) : shape.GetDim(0));
  };
  uint32_t ori_rows = 0;
  rows_cols(srcShape, tiling.srcHeight, tiling.srcWidth);
  rows_cols(oriSrcShape, ori_rows, tiling.srcOriWidth);
  tiling.tmpBufferBytes = stackBufferSize;
  tiling.typeSize = typeSize;
}

inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                     const bool isReuseSource) {
  static_cast<void>(srcShape);
  static_cast<void>(dataTypeSize);
  static_cast<void>(isReuseSource);
  return detail::sim_tmp_buffer_bytes;
}

inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                                     const bool isReuseSource) {
  return GetSoftMaxMaxTmpSize(srcShape, dataTypeSize, isReuseSource);
}

inline void SoftMaxTilingFunc(const ge::Shape& srcShape, const uint32_t dataTypeSize,
                              const uint32_t localWorkSpaceSize, tiling::SoftMaxTiling& tiling) {
  static_cast<void>(localWorkSpaceSize);
  const size_t dims = srcShape.GetDimNum();
  uint64_t m = 1;
  for (size_t i = 0; i + 1 < dims; ++i) m *= static_cast<uint64_t>(srcShape.GetDim(i));
  const uint64_t k = dims == 0 ? 0 : static_cast<uint64_t>(srcShape.GetDim(dims - 1));
  const uint32_t block = dataTypeSize == 0 ? 0 : 32 / dataTypeSize;
  tiling = tiling::SoftMaxTiling{};
  tiling.srcM = static_cast<uint32_t>(m);
  tiling.srcK = static_cast<uint32_t>(k);
  tiling.srcSize = static_cast<uint32_t>(m * k);
  tiling.outMaxM = tiling.srcM;
  tiling.outMaxK = block;
  tiling.outMaxSize = static_cast<uint32_t>(m * block);
  tiling.splitM = tiling.srcM;
  tiling.splitK = tiling.srcK;
  tiling.splitSize = tiling.srcSize;
  tiling.reduceM = tiling.srcM;
  tiling.reduceK = block;
  tiling.reduceSize = tiling.outMaxSize;
  tiling.rangeM = 1;
}

inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                      const bool isReuseSource, uint32_t& maxValue,
                                      uint32_t& minValue) {
  static_cast<void>(srcShape);
  static_cast<void>(typeSize);
  static_cast<void>(isReuseSource);
  detail::sim_tmp_size(maxValue, minValue);
}

inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                     const uint32_t typeSize, const bool isReuseSource,
                                     tiling::LayerNormTiling& tiling) {
  static_cast<void>(typeSize);
  static_cast<void>(isReuseSource);
  const size_t dims = srcShape.GetDimNum();
  // [B, S, H]; a shorter shape is read with the missing leading axes as 1.
  auto dim = [&](size_t from_end) {
    return from_end < dims ? static_cast<uint32_t>(srcShape.GetDim(dims - 1 - from_end)) : 1u;
  };
  tiling = tiling::LayerNormTiling{};
  tiling.bLength = dims >= 3 ? dim(2) : 1;
  tiling.sLength = dims >= 2 ? dim(1) : 1;
  tiling.hLength = dims >= 1 ? dim(0) : 0;
  tiling.originalHLength = tiling.hLength;
  tiling.inputXSize = tiling.bLength * tiling.sLength * tiling.hLength;
  tiling.meanVarSize = tiling.bLength * tiling.sLength;
  tiling.tmpBufSize = stackBufferSize;
  tiling.loopRound = 1;
  tiling.inputRoundSize = tiling.inputXSize;
  tiling.meanVarRoundSize = tiling.meanVarSize;
  tiling.bshCurLength = tiling.inputXSize;
  tiling.bsCurLength = tiling.meanVarSize;
  tiling.lastDimValueBack = tiling.hLength;
}

inline void GetLayerNormNDTillingInfo(const ge::Shape& srcShape, const uint32_t stackBufferSize,
                                      const uint32_t typeSize, const bool isReuseSource,
                                      tiling::LayerNormTiling& tiling) {
  GetLayerNormNDTilingInfo(srcShape, stackBufferSize, typeSize, isReuseSource, tiling);
}

inline bool GetRmsNormMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize,
                                    uint32_t& maxValue, uint32_t& minValue,
                                    const bool isBasicBlock = false) {
  static_cast<void>(srcShape);
  static_cast<void>(typeSize);
  static_cast<void>(isBasicBlock);
  detail::sim_tmp_size(maxValue, minValue);
  return true;
}

inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape,
                                 const uint32_t stackBufferByteSize, const uint32_t typeSize,
                                 tiling::RmsNormTiling& tiling, const bool isBasicBlock = false) {
  static_cast<void>(stackBufferByteSize);
  static_cast<void>(isBasicBlock);
  const size_t dims = srcShape.GetDimNum();
  // [B, S, H]; a shorter shape is read with the missing leading axes as 1.
  auto dim = [&](size_t from_end) {
    return from_end < dims ? static_cast<uint32_t>(srcShape.GetDim(dims - 1 - from_end)) : 1u;
  };
  tiling = tiling::RmsNormTiling{};
  tiling.bLength = dims >= 3 ? dim(2) : 1;
  tiling.sLength = dims >= 2 ? dim(1) : 1;
  tiling.hLength = dims >= 1 ? dim(0) : 0;
  const size_t origin_dims = originSrcShape.GetDimNum();
  tiling.originalHLength = origin_dims >= 1
                               ? static_cast<uint32_t>(originSrcShape.GetDim(origin_dims - 1))
                               : tiling.hLength;
  if (tiling.hLength == 0 || typeSize == 0 || uint64_t{tiling.hLength} * typeSize % 32 != 0 ||
      tiling.originalHLength == 0 || tiling.originalHLength > tiling.hLength) {
    return false;
  }
  tiling.reciprocalOfHLength = 1.0f / static_cast<float>(tiling.originalHLength);
  tiling.mainBsLength = tiling.bLength * tiling.sLength;
  tiling.mainBsLengthAlign = tiling.mainBsLength;
  tiling.mainBshLength = tiling.mainBsLength * tiling.hLength;
  tiling.loopRound = 1;
  return true;
}

}  // namespace AscendC
