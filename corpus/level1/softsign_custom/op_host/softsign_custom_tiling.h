#ifndef SOFTSIGN_CUSTOM_TILING_H
#define SOFTSIGN_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftsignCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SoftsignCustom, SoftsignCustomTilingData);
}  // namespace optiling
#endif  // SOFTSIGN_CUSTOM_TILING_H
