#ifndef MATMUL_INT8_DEQUANT_CUSTOM_TILING_H
#define MATMUL_INT8_DEQUANT_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulInt8DequantCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, m);
TILING_DATA_FIELD_DEF(uint32_t, n);
TILING_DATA_FIELD_DEF(uint32_t, k);
TILING_DATA_FIELD_DEF(uint32_t, baseM);
TILING_DATA_FIELD_DEF(uint32_t, baseN);
TILING_DATA_FIELD_DEF(uint32_t, baseK);
TILING_DATA_FIELD_DEF(uint32_t, l1BufferNum);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulInt8DequantCustom, MatmulInt8DequantCustomTilingData);
}  // namespace optiling
#endif  // MATMUL_INT8_DEQUANT_CUSTOM_TILING_H
