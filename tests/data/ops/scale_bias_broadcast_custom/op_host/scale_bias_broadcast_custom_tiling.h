// Test operator tiling (style of public broadcast operators).
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ScaleBiasBroadcastTilingData)
TILING_DATA_FIELD_DEF(uint32_t, numCol);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsLastCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerLoop);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ScaleBiasBroadcastCustom, ScaleBiasBroadcastTilingData)
}  // namespace optiling
