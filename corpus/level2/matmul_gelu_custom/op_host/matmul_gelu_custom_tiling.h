#ifndef MATMUL_GELU_CUSTOM_TILING_H
#define MATMUL_GELU_CUSTOM_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MatmulGeluCustomTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, cubeTilingData);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MatmulGeluCustom, MatmulGeluCustomTilingData);
}  // namespace optiling
#endif  // MATMUL_GELU_CUSTOM_TILING_H
