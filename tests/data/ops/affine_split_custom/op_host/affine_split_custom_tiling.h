#ifndef AFFINE_SPLIT_CUSTOM_TILING_H
#define AFFINE_SPLIT_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AffineSplitCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, perCoreLength);
TILING_DATA_FIELD_DEF(uint32_t, lastCoreLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AffineSplitCustom, AffineSplitCustomTilingData)
}  // namespace optiling
#endif
