#include <algorithm>

#include "foreach_add_scalar_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 32768]
constexpr uint32_t BUFFER_NUM = 1;      // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 16;  // elements per 32-byte block
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();
    const float* alpha = context->GetAttrs()->GetAttrPointer<float>(0);

    ForeachAddScalarCustomTilingData tiling;
    uint32_t tensorNum = static_cast<uint32_t>(context->GetComputeNodeInputNum());
    if (tensorNum == 0 || tensorNum > MAX_TENSOR_NUM) {
        return ge::GRAPH_FAILED;
    }
    // Every tensor is split over the same cores, each core taking a whole number of 32-byte
    // blocks of it; the block count follows the largest tensor.
    uint32_t blockDim = std::min(BLOCK_DIM, coreNum);
    uint32_t usedCores = 1;
    uint32_t totalLength[MAX_TENSOR_NUM] = {};
    uint32_t blockLength[MAX_TENSOR_NUM] = {};
    for (uint32_t i = 0; i < tensorNum; i++) {
        totalLength[i] = context->GetInputShape(i)->GetStorageShape().GetShapeSize();
        uint32_t alignedBlocks = (totalLength[i] + ALIGN_NUM - 1) / ALIGN_NUM;
        uint32_t cores = std::max(1u, std::min(blockDim, alignedBlocks));
        blockLength[i] = (alignedBlocks + cores - 1) / cores * ALIGN_NUM;
        usedCores = std::max(usedCores, (totalLength[i] + blockLength[i] - 1) / blockLength[i]);
    }

    uint32_t maxTile = (ubSize - UB_RESERVE) / (BUFFER_NUM * 2 * sizeof(uint16_t)) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileLength = std::min(TILE_LENGTH, maxTile) / ALIGN_NUM * ALIGN_NUM;

    tiling.set_tensorNum(tensorNum);
    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
    tiling.set_bufferNum(BUFFER_NUM);
    tiling.set_alpha(*alpha);
    context->SetBlockDim(usedCores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ForeachAddScalarCustom : public OpDef {
public:
    explicit ForeachAddScalarCustom(const char* name) : OpDef(name)
    {
        this->Input("x0").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("x1").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("x2").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("x3").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y0").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y1").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y2").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y3").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("alpha").AttrType(REQUIRED).Float(0.75);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ForeachAddScalarCustom);
}  // namespace ops
