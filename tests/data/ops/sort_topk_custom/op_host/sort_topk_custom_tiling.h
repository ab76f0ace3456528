// Test operator tiling (style of public sort / top-k operators).
#ifndef SORT_TOPK_CUSTOM_TILING_H
#define SORT_TOPK_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SortTopkCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, numCol);
TILING_DATA_FIELD_DEF(uint32_t, k);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsLastCore);
TILING_DATA_FIELD_DEF(uint32_t, sortTmpSize);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SortTopkCustom, SortTopkCustomTilingData)
}  // namespace optiling
#endif
