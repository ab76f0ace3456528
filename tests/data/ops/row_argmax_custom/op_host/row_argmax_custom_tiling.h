// Test operator tiling (style of public reduction operators).
#pragma once
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowArgmaxCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, numCol);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsLastCore);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RowArgmaxCustom, RowArgmaxCustomTilingData)
}  // namespace optiling
