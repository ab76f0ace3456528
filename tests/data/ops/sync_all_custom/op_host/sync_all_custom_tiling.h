#ifndef SYNC_ALL_CUSTOM_TILING_H
#define SYNC_ALL_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SyncAllCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SyncAllCustom, SyncAllCustomTilingData)
}  // namespace optiling
#endif
