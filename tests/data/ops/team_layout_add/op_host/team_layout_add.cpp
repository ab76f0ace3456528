// The tiling function is a template in its own namespace, found from the registration.
#include "team_layout_add_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "team_layout_add_consts.h"
#include "tiling_helpers/tile_math.h"

using namespace AscendC;

namespace optiling {
namespace team_layout_impl {
template <bool kAccumulate>
ge::graphStatus TilingTeamLayoutAdd(gert::TilingContext* context) {
  // CANN answers a typed read of a bool attribute with its storage.
  const uint32_t* accumulate = context->GetAttrs()->GetAttrPointer<uint32_t>(0);
  if (accumulate == nullptr || *accumulate != static_cast<uint32_t>(kAccumulate)) {
    return ge::GRAPH_FAILED;
  }
  TeamLayoutAddTilingData tiling;
  const uint32_t total = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
  context->SetBlockDim(kTeamLayoutBlocks);
  tiling.set_totalLength(total);
  tiling.set_tileLength(team_layout::CeilDiv(total, kTeamLayoutBlocks * 4));
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  return ge::GRAPH_SUCCESS;
}
}  // namespace team_layout_impl
}  // namespace optiling

namespace ops {
class TeamLayoutAdd : public OpDef {
 public:
  explicit TeamLayoutAdd(const char* name) : OpDef(name) {
    this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
    this->Attr("accumulate").AttrType(OPTIONAL).Bool(true);
    this->AICore().SetTiling(optiling::team_layout_impl::TilingTeamLayoutAdd<true>);
    this->AICore().AddConfig("ascend910b");
  }
};
OP_ADD(TeamLayoutAdd);
}  // namespace ops
