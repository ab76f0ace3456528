// Test operator tiling data: the rows each core gathers and the row length.
#ifndef EMBEDDING_GATHER_CUSTOM_TILING_H
#define EMBEDDING_GATHER_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(EmbeddingGatherCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF(uint32_t, dim);
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(EmbeddingGatherCustom, EmbeddingGatherCustomTilingData)
}  // namespace optiling
#endif  // EMBEDDING_GATHER_CUSTOM_TILING_H
