#ifndef MINIMUM_CUSTOM_TILING_H
#define MINIMUM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MinimumCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MinimumCustom, MinimumCustomTilingData);
}  // namespace optiling
#endif  // MINIMUM_CUSTOM_TILING_H
