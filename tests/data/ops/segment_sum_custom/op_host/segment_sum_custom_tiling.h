// Test operator tiling data: the segments each core sums.
#ifndef SEGMENT_SUM_CUSTOM_TILING_H
#define SEGMENT_SUM_CUSTOM_TILING_H
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SegmentSumCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, segments);
TILING_DATA_FIELD_DEF(uint32_t, segmentsPerCore);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(SegmentSumCustom, SegmentSumCustomTilingData)
}  // namespace optiling
#endif  // SEGMENT_SUM_CUSTOM_TILING_H
