#ifndef MATMUL_PANEL_CUSTOM_TILING_H
#define MATMUL_PANEL_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulPanelCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, m);
TILING_DATA_FIELD_DEF(uint32_t, n);
TILING_DATA_FIELD_DEF(uint32_t, k);
TILING_DATA_FIELD_DEF(uint32_t, baseM);
TILING_DATA_FIELD_DEF(uint32_t, baseN);
TILING_DATA_FIELD_DEF(uint32_t, baseK);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulPanelCustom, MatmulPanelCustomTilingData);
}  // namespace optiling
#endif  // MATMUL_PANEL_CUSTOM_TILING_H
