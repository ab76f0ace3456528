// Test operator tiling: one row per core. bias is optional: asked by its prototype index, it is
// null when the call leaves it out, and the instance indices after it skip it.
#include "inplace_update_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
constexpr size_t kBiasIrIndex = 2;

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  InplaceUpdateTilingData tiling;
  const gert::Shape& var = context->GetInputShape(0)->GetOriginShape();
  const bool hasBias = context->GetOptionalInputShape(kBiasIrIndex) != nullptr;
  // The staging buffer is the last instantiated input: it must match var.
  const gert::StorageShape* stage = context->GetInputShape(context->GetComputeNodeInputNum() - 1);
  if (stage == nullptr || stage->GetOriginShape() != var) return ge::GRAPH_FAILED;
  context->SetBlockDim(static_cast<uint32_t>(var.GetDim(0)));
  tiling.set_rowLength(static_cast<uint32_t>(var.GetDim(1)));
  tiling.set_hasBias(hasBias ? 1 : 0);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
