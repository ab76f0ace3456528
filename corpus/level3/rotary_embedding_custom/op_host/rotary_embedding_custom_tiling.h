#ifndef ROTARY_EMBEDDING_CUSTOM_TILING_H
#define ROTARY_EMBEDDING_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RotaryEmbeddingCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tokens);
TILING_DATA_FIELD_DEF(uint32_t, heads);
TILING_DATA_FIELD_DEF(uint32_t, headDim);
TILING_DATA_FIELD_DEF(uint32_t, tokensPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tokensPerTile);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(RotaryEmbeddingCustom, RotaryEmbeddingCustomTilingData);
}  // namespace optiling
#endif  // ROTARY_EMBEDDING_CUSTOM_TILING_H
