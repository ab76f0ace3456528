#ifndef CROSS_ENTROPY_CUSTOM_TILING_H
#define CROSS_ENTROPY_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CrossEntropyCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, classes);
TILING_DATA_FIELD_DEF(uint32_t, classesAligned);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CrossEntropyCustom, CrossEntropyCustomTilingData);
}  // namespace optiling
#endif  // CROSS_ENTROPY_CUSTOM_TILING_H
