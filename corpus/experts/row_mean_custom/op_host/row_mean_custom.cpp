#include <algorithm>

#include "row_mean_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 512; // tunable: range [8, 2048] step 8
constexpr uint32_t BUFFER_NUM = 2;      // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 8;           // floats per 32-byte block
constexpr uint32_t FLOATS_PER_REPEAT = 64;  // one 256-byte vector repeat
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
    // One row per vector repeat: rows must be whole 32-byte blocks that fit one repeat.
    if (cols % ALIGN_NUM != 0 || cols > FLOATS_PER_REPEAT) {
        return ge::GRAPH_FAILED;
    }

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t formerNum = rows % blockDim;
    uint32_t tailRows = rows / blockDim;
    uint32_t formerRows = tailRows + 1;

    uint32_t maxRows = (ubSize - UB_RESERVE) / (BUFFER_NUM * (cols + 1) * sizeof(float)) / ALIGN_NUM * ALIGN_NUM;
    uint32_t rowsPerTile = std::min(ROWS_PER_TILE, maxRows) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileNum = (formerRows + rowsPerTile - 1) / rowsPerTile;
    rowsPerTile = ((formerRows + tileNum - 1) / tileNum + ALIGN_NUM - 1) / ALIGN_NUM * ALIGN_NUM;

    RowMeanCustomTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_formerNum(formerNum);
    tiling.set_formerRows(formerRows);
    tiling.set_tailRows(tailRows);
    tiling.set_rowsPerTile(rowsPerTile);
    tiling.set_bufferNum(BUFFER_NUM);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class RowMeanCustom : public OpDef {
public:
    explicit RowMeanCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowMeanCustom);
}  // namespace ops
