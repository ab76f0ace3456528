// Test operator host side: GroupNorm of x [N, C, HW] over G groups with per-channel gamma and
// beta; the N * G groups are split over the vector cores. The kernel's affine step works one
// 64-float repeat per channel, so HW is 64 here (other sizes are refused).
#include "group_norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t FLOATS_PER_REPEAT = 64;

static ge::graphStatus GroupNormTilingFunc(gert::TilingContext* context)
{
    GroupNormCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = platform.GetCoreNumAiv();
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    if (x.GetDimNum() != 3) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t n = x.GetDim(0);
    const uint32_t c = x.GetDim(1);
    const uint32_t hw = x.GetDim(2);
    const int64_t* groups = context->GetAttrs()->GetAttrPointer<int64_t>(0);
    const float* epsilon = context->GetAttrs()->GetAttrPointer<float>(1);
    if (groups == nullptr || *groups <= 0 || c % *groups != 0 || hw != FLOATS_PER_REPEAT) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t numGroups = n * static_cast<uint32_t>(*groups);
    const uint32_t groupsPerCore = (numGroups + coreNum - 1) / coreNum;
    const uint32_t usedCoreNum = (numGroups + groupsPerCore - 1) / groupsPerCore;
    tiling.set_numGroups(numGroups);
    tiling.set_channelsPerGroup(c / static_cast<uint32_t>(*groups));
    tiling.set_numChannels(c);
    tiling.set_hw(hw);
    tiling.set_groupsPerCore(groupsPerCore);
    tiling.set_groupsLastCore(numGroups - groupsPerCore * (usedCoreNum - 1));
    tiling.set_epsilon(*epsilon);
    context->SetBlockDim(usedCoreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class GroupNormCustom : public OpDef {
public:
    explicit GroupNormCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("beta").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("num_groups").Int();
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5f);
        this->AICore().SetTiling(optiling::GroupNormTilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(GroupNormCustom);
}  // namespace ops
