#ifndef MATMUL_PIPELINED_LEAKYRELU_CUSTOM_TILING_H
#define MATMUL_PIPELINED_LEAKYRELU_CUSTOM_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulPipelinedLeakyreluCustomTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulPipelinedLeakyreluCustom, MatmulPipelinedLeakyreluCustomTilingData);
}  // namespace optiling
#endif  // MATMUL_PIPELINED_LEAKYRELU_CUSTOM_TILING_H
