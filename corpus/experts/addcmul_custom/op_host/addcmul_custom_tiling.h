#ifndef ADDCMUL_CUSTOM_TILING_H
#define ADDCMUL_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddcmulCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerLength);
TILING_DATA_FIELD_DEF(uint32_t, tailLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, scalarValue);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddcmulCustom, AddcmulCustomTilingData);
}  // namespace optiling
#endif  // ADDCMUL_CUSTOM_TILING_H
