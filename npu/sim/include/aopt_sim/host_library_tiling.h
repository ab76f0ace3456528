// aopt simulator, host side: the tiling functions of the AscendC library APIs whose kernel side
// the simulator provides (UnPad), filling the structs of aopt_sim/library_tiling.h that a tiling
// class holds as a field (`TILING_DATA_FIELD_DEF_STRUCT(UnPadTiling, unpadTilingData)`).
//
//   GetUnPadMaxMinTmpSize(platform, srcShape, typeSize, max, min)  the temporary UB UnPad
//       needs: the simulator's UnPad uses none, so one 32-byte block, as the math library's
//       helpers report (aopt_sim/host_math_tmp_size.h says why)
//   UnPadTilingFunc(srcShape, stackBufferSize, typeSize, tiling)  the [height, width] source
//       shape (a 2-D shape, as documented) and the buffer size, for the kernel's UnPad
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

}  // namespace AscendC
