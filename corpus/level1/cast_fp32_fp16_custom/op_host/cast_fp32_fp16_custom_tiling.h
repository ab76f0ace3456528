#ifndef CAST_FP32_FP16_CUSTOM_TILING_H
#define CAST_FP32_FP16_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(CastFp32Fp16CustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(CastFp32Fp16Custom, CastFp32Fp16CustomTilingData);
}  // namespace optiling
#endif  // CAST_FP32_FP16_CUSTOM_TILING_H
