#ifndef ROW_MEAN_CUSTOM_TILING_H
#define ROW_MEAN_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowMeanCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerRows);
TILING_DATA_FIELD_DEF(uint32_t, tailRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RowMeanCustom, RowMeanCustomTilingData);
}  // namespace optiling
#endif  // ROW_MEAN_CUSTOM_TILING_H
