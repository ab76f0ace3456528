#ifndef ROW_CENTER_CUSTOM_TILING_H
#define ROW_CENTER_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowCenterCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerRows);
TILING_DATA_FIELD_DEF(uint32_t, tailRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RowCenterCustom, RowCenterCustomTilingData);
}  // namespace optiling
#endif  // ROW_CENTER_CUSTOM_TILING_H
