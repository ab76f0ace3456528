#ifndef CAST_FP16_FP32_CUSTOM_TILING_H
#define CAST_FP16_FP32_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastFp16Fp32CustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastFp16Fp32Custom, CastFp16Fp32CustomTilingData);
}  // namespace optiling
#endif  // CAST_FP16_FP32_CUSTOM_TILING_H
