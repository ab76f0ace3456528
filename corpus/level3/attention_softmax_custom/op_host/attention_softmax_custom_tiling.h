#ifndef ATTENTION_SOFTMAX_CUSTOM_TILING_H
#define ATTENTION_SOFTMAX_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AttentionSoftmaxCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, seqLen);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerTile);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AttentionSoftmaxCustom, AttentionSoftmaxCustomTilingData);
}  // namespace optiling
#endif  // ATTENTION_SOFTMAX_CUSTOM_TILING_H
