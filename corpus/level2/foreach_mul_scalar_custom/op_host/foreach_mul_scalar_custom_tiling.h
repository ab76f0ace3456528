#ifndef FOREACH_MUL_SCALAR_CUSTOM_TILING_H
#define FOREACH_MUL_SCALAR_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
constexpr uint32_t MAX_TENSOR_NUM = 8;

BEGIN_TILING_DATA_DEF(ForeachMulScalarCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tensorNum);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, totalLength);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ForeachMulScalarCustom, ForeachMulScalarCustomTilingData);
}  // namespace optiling
#endif  // FOREACH_MUL_SCALAR_CUSTOM_TILING_H
