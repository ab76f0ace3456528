#ifndef CLAMP_CUSTOM_TILING_H
#define CLAMP_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ClampCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, min_val);
TILING_DATA_FIELD_DEF(float, max_val);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ClampCustom, ClampCustomTilingData);
}  // namespace optiling
#endif  // CLAMP_CUSTOM_TILING_H
