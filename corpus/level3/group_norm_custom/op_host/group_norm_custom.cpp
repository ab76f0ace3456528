#include <algorithm>

#include "group_norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 16384]
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 8;  // floats per 32-byte block
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t batch = shape.GetDim(0);
    uint32_t channels = shape.GetDim(1);
    uint32_t spatial = shape.GetShapeSize() / (static_cast<int64_t>(batch) * channels);
    uint32_t groups = static_cast<uint32_t>(*context->GetAttrs()->GetAttrPointer<int64_t>(0));
    const float* epsilon = context->GetAttrs()->GetAttrPointer<float>(1);
    if (groups == 0 || channels % groups != 0 || spatial % ALIGN_NUM != 0) {
        return ge::GRAPH_FAILED;  // channel segments are copied as whole 32-byte blocks
    }

    uint32_t groupCount = batch * groups;
    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, groupCount}));
    uint32_t groupsPerCore = (groupCount + blockDim - 1) / blockDim;
    blockDim = (groupCount + groupsPerCore - 1) / groupsPerCore;

    // x and y tiles, the reduce workspace and the scalar slot.
    uint32_t maxTile = (ubSize - UB_RESERVE) / (3 * sizeof(float)) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileLength = std::min({TILE_LENGTH, maxTile, spatial});
    tileLength = std::max(ALIGN_NUM, tileLength / ALIGN_NUM * ALIGN_NUM);

    GroupNormCustomTilingData tiling;
    tiling.set_groupCount(groupCount);
    tiling.set_groups(groups);
    tiling.set_channelsPerGroup(channels / groups);
    tiling.set_spatial(spatial);
    tiling.set_groupsPerCore(groupsPerCore);
    tiling.set_tileLength(tileLength);
    tiling.set_epsilon(*epsilon);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
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
        this->Attr("num_groups").AttrType(REQUIRED).Int(32);
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-5f);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(GroupNormCustom);
}  // namespace ops
