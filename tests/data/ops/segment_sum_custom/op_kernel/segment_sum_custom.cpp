// Test operator kernel entry: segment sums of float values.
#include "kernel_operator.h"
#include "segment_sum_kernel.h"

extern "C" __global__ __aicore__ void segment_sum_custom(GM_ADDR values, GM_ADDR offsets, GM_ADDR out,
                                                         GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    SegmentSum::SegmentSumKernel<float> op;
    op.Init(values, offsets, out, tilingData.segments, tilingData.segmentsPerCore);
    op.Process();
}
