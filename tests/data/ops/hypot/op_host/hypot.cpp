// Test operator tiling: the elements split evenly over 8 cores, 2048-element tiles. The OpDef
// updates x in place the way CANN declares it: an output of the input's name.
#include "hypot_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
constexpr uint32_t kCores = 8;
constexpr uint32_t kTileLength = 2048;

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  HypotTilingData tiling;
  const uint32_t total =
      static_cast<uint32_t>(context->GetInputShape(0)->GetOriginShape().GetShapeSize());
  context->SetBlockDim(kCores);
  tiling.set_perCore(total / kCores);
  tiling.set_tileLength(kTileLength);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class Hypot : public OpDef {
 public:
  explicit Hypot(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->AICore().SetTiling(optiling::TilingFunc);
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(Hypot);
}  // namespace ops
