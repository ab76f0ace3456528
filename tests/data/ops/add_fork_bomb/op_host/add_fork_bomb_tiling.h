#ifndef ADD_FORK_BOMB_TILING_H
#define ADD_FORK_BOMB_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(AddForkBombTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(AddForkBomb, AddForkBombTilingData)
}  // namespace optiling
#endif
