#include <algorithm>

#include "position_add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 4096;  // tunable: pow2 [256, 16384]
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 8;  // floats per 32-byte block
constexpr uint32_t BUFFER_COUNT = 3;  // x, positions, y
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

    uint32_t maxTile = (ubSize - UB_RESERVE) / (BUFFER_COUNT * sizeof(float)) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileLength = std::min(TILE_LENGTH, maxTile);

    PositionAddCustomTilingData tiling;
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
class PositionAddCustom : public OpDef {
public:
    explicit PositionAddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(PositionAddCustom);
}  // namespace ops
