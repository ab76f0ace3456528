#ifndef LAYER_SCALE_RESIDUAL_CUSTOM_TILING_H
#define LAYER_SCALE_RESIDUAL_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(LayerScaleResidualCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, cols);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerRows);
TILING_DATA_FIELD_DEF(uint32_t, tailRows);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(LayerScaleResidualCustom, LayerScaleResidualCustomTilingData);
}  // namespace optiling
#endif  // LAYER_SCALE_RESIDUAL_CUSTOM_TILING_H
