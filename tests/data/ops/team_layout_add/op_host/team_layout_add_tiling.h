// Two tiling classes registered in one header, END_TILING_DATA_DEF without ';' (as some teams
// write it).
#ifndef TEAM_LAYOUT_ADD_TILING_H
#define TEAM_LAYOUT_ADD_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(TeamLayoutAddTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
END_TILING_DATA_DEF

BEGIN_TILING_DATA_DEF(TeamLayoutAddGradTilingData)
TILING_DATA_FIELD_DEF(uint64_t, unused);
TILING_DATA_FIELD_DEF(uint32_t, alsoUnused);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(TeamLayoutAddGrad, TeamLayoutAddGradTilingData)
REGISTER_TILING_DATA_CLASS(TeamLayoutAdd, TeamLayoutAddTilingData)
}  // namespace optiling
#endif
