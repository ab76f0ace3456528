#ifndef ADD_RMS_NORM_CUSTOM_TILING_H
#define ADD_RMS_NORM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddRmsNormCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddRmsNormCustom, AddRmsNormCustomTilingData);
}  // namespace optiling
#endif  // ADD_RMS_NORM_CUSTOM_TILING_H
