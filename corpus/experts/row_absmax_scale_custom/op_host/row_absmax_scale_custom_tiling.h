#ifndef ROW_ABSMAX_SCALE_CUSTOM_TILING_H
#define ROW_ABSMAX_SCALE_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowAbsmaxScaleCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, colsAligned);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerRows);
TILING_DATA_FIELD_DEF(uint32_t, tailRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RowAbsmaxScaleCustom, RowAbsmaxScaleCustomTilingData);
}  // namespace optiling
#endif  // ROW_ABSMAX_SCALE_CUSTOM_TILING_H
