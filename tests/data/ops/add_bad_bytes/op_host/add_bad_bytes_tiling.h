#ifndef ADD_BAD_BYTES_TILING_H
#define ADD_BAD_BYTES_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddBadBytesTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddBadBytes, AddBadBytesTilingData)
}  // namespace optiling
#endif
