#ifndef MLP_BLOCK_CUSTOM_TILING_H
#define MLP_BLOCK_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MlpBlockCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(float, keepScale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MlpBlockCustom, MlpBlockCustomTilingData);
}  // namespace optiling
#endif  // MLP_BLOCK_CUSTOM_TILING_H
