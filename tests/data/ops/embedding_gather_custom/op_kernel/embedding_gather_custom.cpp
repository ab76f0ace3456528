// Test operator kernel entry: one gather of float32_t rows.
#include "embedding_gather_kernel.h"
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void embedding_gather_custom(GM_ADDR table, GM_ADDR indices, GM_ADDR out,
                                                              GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    EmbeddingGather::GatherKernel<float32_t> op;
    op.Init(table, indices, out, tilingData.rows, tilingData.dim, tilingData.rowsPerCore);
    op.Process();
}
