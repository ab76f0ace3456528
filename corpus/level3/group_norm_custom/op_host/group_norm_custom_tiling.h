#ifndef GROUP_NORM_CUSTOM_TILING_H
#define GROUP_NORM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GroupNormCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, groupCount);      // batch * groups
TILING_DATA_FIELD_DEF(uint32_t, groups);
TILING_DATA_FIELD_DEF(uint32_t, channelsPerGroup);
TILING_DATA_FIELD_DEF(uint32_t, spatial);         // elements per channel
TILING_DATA_FIELD_DEF(uint32_t, groupsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(GroupNormCustom, GroupNormCustomTilingData);
}  // namespace optiling
#endif  // GROUP_NORM_CUSTOM_TILING_H
