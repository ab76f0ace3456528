// Test operator host side, in the layout of CANN's custom-operator samples: one block per row,
// a workspace for the rows the blocks exchange (the hardware SyncAll needs a non-zero one).
#include "register/op_def_registry.h"
#include "sync_all_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t BLOCK_DIM = 8;

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  // SyncAll needs every block on a core at once.
  if (ascendcPlatform.GetCoreNumAiv() < BLOCK_DIM) return ge::GRAPH_FAILED;
  SyncAllCustomTilingData tiling;
  const uint32_t total = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
  const uint32_t rowLength = total / BLOCK_DIM;
  context->SetBlockDim(BLOCK_DIM);
  tiling.set_rowLength(rowLength);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = total * sizeof(float);
  return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(SyncAllCustom).Tiling(TilingFunc);
}  // namespace optiling
