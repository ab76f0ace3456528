// The entry: its class is in a header beside it; a constant comes from the package root.
#include "kernel_operator.h"
#include "op_host/team_layout_add_consts.h"
#include "team_layout_add_block.h"

extern "C" __global__ __aicore__ void team_layout_add(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                      GM_ADDR workspace, GM_ADDR tiling) {
  // The tiling asks for no workspace; as on CANN, the kernel still gets a valid pointer.
  if (workspace == nullptr) return;
  GET_TILING_DATA(tilingData, tiling);
  TeamLayoutAddBlock op;
  op.Init(x, y, z, tilingData.totalLength, tilingData.tileLength);
  op.Process();
}
