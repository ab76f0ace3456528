#ifndef ADDS_CUSTOM_TILING_H
#define ADDS_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddsCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, scalar);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddsCustom, AddsCustomTilingData);
}  // namespace optiling
#endif  // ADDS_CUSTOM_TILING_H
