#ifndef STANDARDIZE_CUSTOM_TILING_H
#define STANDARDIZE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(StandardizeCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, mean);
TILING_DATA_FIELD_DEF(float, stddev);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(StandardizeCustom, StandardizeCustomTilingData);
}  // namespace optiling
#endif  // STANDARDIZE_CUSTOM_TILING_H
