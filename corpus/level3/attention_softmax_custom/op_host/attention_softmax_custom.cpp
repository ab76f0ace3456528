#include <algorithm>

#include "attention_softmax_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 2;  // tunable: range [1, 16]
constexpr uint32_t BUFFER_NUM = 1;     // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t MASK_ALIGN = 32;  // uint8 per 32-byte block
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t seqLen = shape.GetDim(shape.GetDimNum() - 1);
    uint32_t rows = shape.GetShapeSize() / seqLen;
    if (seqLen % MASK_ALIGN != 0) {
        return ge::GRAPH_FAILED;  // score and mask rows are copied as whole 32-byte blocks
    }
    const float* scale = context->GetAttrs()->GetAttrPointer<float>(0);

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    blockDim = (rows + rowsPerCore - 1) / rowsPerCore;

    // Per row and buffer: scores, mask and probabilities. Fixed: a half and two float rows, the
    // reduce workspace and the scalar slot.
    uint32_t fixedBytes = seqLen * (2 + 3 * 4) + 32;
    uint32_t maxRows = (ubSize - UB_RESERVE - fixedBytes) / (BUFFER_NUM * seqLen * (2 + 1 + 2));
    uint32_t rowsPerTile = std::max(1u, std::min({ROWS_PER_TILE, maxRows, rowsPerCore}));

    AttentionSoftmaxCustomTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_seqLen(seqLen);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowsPerTile(rowsPerTile);
    tiling.set_bufferNum(BUFFER_NUM);
    tiling.set_scale(*scale);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class AttentionSoftmaxCustom : public OpDef {
public:
    explicit AttentionSoftmaxCustom(const char* name) : OpDef(name)
    {
        this->Input("scores").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("mask").ParamType(REQUIRED).DataType({ge::DT_UINT8}).Format({ge::FORMAT_ND});
        this->Output("probs").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("scale").AttrType(OPTIONAL).Float(1.0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AttentionSoftmaxCustom);
}  // namespace ops
