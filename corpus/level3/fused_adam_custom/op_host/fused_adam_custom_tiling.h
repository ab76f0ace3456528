#ifndef FUSED_ADAM_CUSTOM_TILING_H
#define FUSED_ADAM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(FusedAdamCustomTilingData)
TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, totalLength);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, blockLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, beta1);
TILING_DATA_FIELD_DEF(float, beta2);
TILING_DATA_FIELD_DEF(float, epsilon);
TILING_DATA_FIELD_DEF(float, stepSize);
TILING_DATA_FIELD_DEF(float, invBiasCorrection2);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(FusedAdamCustom, FusedAdamCustomTilingData);
}  // namespace optiling
#endif  // FUSED_ADAM_CUSTOM_TILING_H
