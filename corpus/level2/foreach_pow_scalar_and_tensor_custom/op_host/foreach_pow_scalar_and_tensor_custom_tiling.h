#ifndef FOREACH_POW_SCALAR_AND_TENSOR_CUSTOM_TILING_H
#define FOREACH_POW_SCALAR_AND_TENSOR_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
constexpr uint32_t MAX_TENSOR_NUM = 8;

BEGIN_TILING_DATA_DEF(ForeachPowScalarAndTensorCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tensorNum);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, totalLength);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 8, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, logBase);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(ForeachPowScalarAndTensorCustom, ForeachPowScalarAndTensorCustomTilingData);
}  // namespace optiling
#endif  // FOREACH_POW_SCALAR_AND_TENSOR_CUSTOM_TILING_H
