#include <algorithm>

#include "masked_position_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 8192]
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 8;  // int32 elements per 32-byte block
// mask and y in ping and pong halves, the positions once.
constexpr uint32_t TILE_BUFFERS = 5;
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t alignedBlocks = (totalLength + ALIGN_NUM - 1) / ALIGN_NUM;
    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, alignedBlocks}));
    uint32_t formerNum = alignedBlocks % blockDim;
    uint32_t tailLength = alignedBlocks / blockDim * ALIGN_NUM;
    uint32_t formerLength = tailLength + ALIGN_NUM;

    uint32_t maxTile = (ubSize - UB_RESERVE) / (TILE_BUFFERS * sizeof(int32_t)) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileLength = std::min(TILE_LENGTH, maxTile);

    MaskedPositionCustomTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_formerNum(formerNum);
    tiling.set_formerLength(formerLength);
    tiling.set_tailLength(tailLength);
    tiling.set_tileLength(tileLength);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class MaskedPositionCustom : public OpDef {
public:
    explicit MaskedPositionCustom(const char* name) : OpDef(name)
    {
        this->Input("mask").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MaskedPositionCustom);
}  // namespace ops
