#ifndef SCALED_MASKED_FILL_CUSTOM_TILING_H
#define SCALED_MASKED_FILL_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaledMaskedFillCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, scale);
TILING_DATA_FIELD_DEF(float, fill_value);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ScaledMaskedFillCustom, ScaledMaskedFillCustomTilingData);
}  // namespace optiling
#endif  // SCALED_MASKED_FILL_CUSTOM_TILING_H
