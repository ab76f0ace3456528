#ifndef MATMUL_TRANSPOSE_ACCUMULATE_TILING_H
#define MATMUL_TRANSPOSE_ACCUMULATE_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulTransposeAccumulateTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
TILING_DATA_FIELD_DEF(uint32_t, isTransA);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulTransposeAccumulate, MatmulTransposeAccumulateTilingData);
}  // namespace optiling
#endif  // MATMUL_TRANSPOSE_ACCUMULATE_TILING_H
