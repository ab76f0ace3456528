#include <algorithm>

#include "rms_norm_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 2;  // tunable: range [1, 32]
constexpr uint32_t BUFFER_NUM = 1;     // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 16;  // bfloat16 per 32-byte block
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t cols = shape.GetDim(shape.GetDimNum() - 1);
    uint32_t rows = shape.GetShapeSize() / cols;
    if (cols % ALIGN_NUM != 0) {
        return ge::GRAPH_FAILED;  // rows are copied as whole 32-byte blocks
    }
    const float* epsilon = context->GetAttrs()->GetAttrPointer<float>(0);

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    blockDim = (rows + rowsPerCore - 1) / rowsPerCore;

    // Per row and buffer: input and output rows (2 bytes each). Fixed: gamma (half and float),
    // a float row, its squares and the reduce workspace.
    uint32_t fixedBytes = cols * 2 + 4 * cols * sizeof(float) + 64;
    uint32_t maxRows = (ubSize - UB_RESERVE - fixedBytes) / (BUFFER_NUM * 2 * cols * 2);
    uint32_t rowsPerTile = std::max(1u, std::min({ROWS_PER_TILE, maxRows, rowsPerCore}));

    RmsNormCustomTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowsPerTile(rowsPerTile);
    tiling.set_bufferNum(BUFFER_NUM);
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
class RmsNormCustom : public OpDef {
public:
    explicit RmsNormCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
        this->Input("gamma").ParamType(REQUIRED).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_BF16}).Format({ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RmsNormCustom);
}  // namespace ops
