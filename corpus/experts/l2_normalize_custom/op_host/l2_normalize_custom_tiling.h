#ifndef L2_NORMALIZE_CUSTOM_TILING_H
#define L2_NORMALIZE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(L2NormalizeCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerRows);
TILING_DATA_FIELD_DEF(uint32_t, tailRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(L2NormalizeCustom, L2NormalizeCustomTilingData);
}  // namespace optiling
#endif  // L2_NORMALIZE_CUSTOM_TILING_H
