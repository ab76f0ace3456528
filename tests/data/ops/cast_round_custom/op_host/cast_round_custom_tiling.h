// Test operator tiling (style of public type-conversion operators): a flat split in 32-byte
// blocks over the cores, a UB tile, and the tail of each core.
#ifndef CAST_ROUND_CUSTOM_TILING_H
#define CAST_ROUND_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastRoundCustomTilingData)
TILING_DATA_FIELD_DEF(uint64_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, perCoreLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastRoundCustom, CastRoundCustomTilingData)
}  // namespace optiling
#endif
