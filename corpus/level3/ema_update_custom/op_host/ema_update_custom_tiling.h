#ifndef EMA_UPDATE_CUSTOM_TILING_H
#define EMA_UPDATE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(EmaUpdateCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, decay);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(EmaUpdateCustom, EmaUpdateCustomTilingData);
}  // namespace optiling
#endif  // EMA_UPDATE_CUSTOM_TILING_H
