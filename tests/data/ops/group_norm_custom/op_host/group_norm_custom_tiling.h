// Test operator tiling (style of public normalisation operators).
#ifndef GROUP_NORM_CUSTOM_TILING_H
#define GROUP_NORM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GroupNormCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, numGroups);       // N * G
TILING_DATA_FIELD_DEF(uint32_t, channelsPerGroup);
TILING_DATA_FIELD_DEF(uint32_t, numChannels);
TILING_DATA_FIELD_DEF(uint32_t, hw);
TILING_DATA_FIELD_DEF(uint32_t, groupsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, groupsLastCore);
TILING_DATA_FIELD_DEF(float, epsilon);
END_TILING_DATA_DEF

REGISTER_TILING_DATA_CLASS(GroupNormCustom, GroupNormCustomTilingData)
}  // namespace optiling
#endif
