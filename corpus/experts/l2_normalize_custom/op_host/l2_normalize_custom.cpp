#include <algorithm>

#include "l2_normalize_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 16; // tunable: range [1, 64]
constexpr uint32_t BUFFER_NUM = 2;     // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t FLOATS_PER_REPEAT = 64;
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
    // Two-level repeat reduction: cols / 64 partial sums per row, a whole number of 32-byte blocks
    // and at most one repeat of them.
    if (cols % (8 * FLOATS_PER_REPEAT) != 0 || cols > FLOATS_PER_REPEAT * FLOATS_PER_REPEAT) {
        return ge::GRAPH_FAILED;
    }
    const float* epsilon = context->GetAttrs()->GetAttrPointer<float>(0);

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t formerNum = rows % blockDim;
    uint32_t tailRows = rows / blockDim;
    uint32_t formerRows = tailRows + 1;

    // Per row: x and y tiles per buffer, the squares, the partial sums and the row's scale.
    uint32_t rowBytes = (BUFFER_NUM * 2 * cols + cols + cols / FLOATS_PER_REPEAT + 1) * sizeof(float);
    uint32_t maxRows = (ubSize - UB_RESERVE) / rowBytes;
    uint32_t rowsPerTile = std::max(1u, std::min({ROWS_PER_TILE, maxRows, formerRows}));

    L2NormalizeCustomTilingData tiling;
    tiling.set_cols(cols);
    tiling.set_formerNum(formerNum);
    tiling.set_formerRows(formerRows);
    tiling.set_tailRows(tailRows);
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
class L2NormalizeCustom : public OpDef {
public:
    explicit L2NormalizeCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-12);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(L2NormalizeCustom);
}  // namespace ops
