#ifndef POW_CUSTOM_TILING_H
#define POW_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(PowCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, exponent);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(PowCustom, PowCustomTilingData);
}  // namespace optiling
#endif  // POW_CUSTOM_TILING_H
