// Test operator tiling: every core gets an equal slice, cut into TILE_NUM double-buffered tiles.
#include "add_bad_bytes_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;  // tunable: [1, 40]
constexpr uint32_t TILE_NUM = 8;   // tunable: [1, 64] power of two
// EVOLVE-BLOCK-END

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  AddBadBytesTilingData tiling;
  const uint32_t total = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
  context->SetBlockDim(BLOCK_DIM);
  tiling.set_totalLength(total);
  tiling.set_tileNum(TILE_NUM);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
