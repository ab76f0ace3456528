#ifndef CLAMP_POWER_CUSTOM_TILING_H
#define CLAMP_POWER_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ClampPowerCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ClampPowerCustom, ClampPowerCustomTilingData)
}  // namespace optiling
#endif
