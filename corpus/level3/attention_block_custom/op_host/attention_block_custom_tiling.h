#ifndef ATTENTION_BLOCK_CUSTOM_TILING_H
#define ATTENTION_BLOCK_CUSTOM_TILING_H
#include "register/tilingdata_base.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AttentionBlockCustomTilingData)
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, scoreTiling);  // q k^T: rowBlock x s, over d
TILING_DATA_FIELD_DEF_STRUCT(TCubeTiling, valueTiling);  // p v: rowBlock x d, over s
TILING_DATA_FIELD_DEF(uint32_t, seqLen);
TILING_DATA_FIELD_DEF(uint32_t, headDim);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowBlock);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AttentionBlockCustom, AttentionBlockCustomTilingData);
}  // namespace optiling
#endif  // ATTENTION_BLOCK_CUSTOM_TILING_H
