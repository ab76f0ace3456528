#ifndef INPLACE_UPDATE_TILING_H
#define INPLACE_UPDATE_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(InplaceUpdateTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowLength);
TILING_DATA_FIELD_DEF(uint32_t, hasBias);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(InplaceUpdate, InplaceUpdateTilingData)
}  // namespace optiling
#endif
