#include <algorithm>

#include "row_absmax_scale_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 8;  // tunable: range [1, 32]
constexpr uint32_t BUFFER_NUM = 2;     // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 16;  // halves per 32-byte block
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
    uint32_t colsAligned = (cols + ALIGN_NUM - 1) / ALIGN_NUM * ALIGN_NUM;

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t formerNum = rows % blockDim;
    uint32_t tailRows = rows / blockDim;
    uint32_t formerRows = tailRows + 1;

    // Per row and buffer: the half input and output rows. Fixed: two float rows (the scaled row
    // and its magnitudes), the reduce workspace and the scalar slot.
    uint32_t fixedBytes = (3 * colsAligned + ALIGN_NUM) * sizeof(float);
    uint32_t maxRows = (ubSize - UB_RESERVE - fixedBytes) / (BUFFER_NUM * 2 * colsAligned * sizeof(uint16_t));
    uint32_t rowsPerTile = std::max(1u, std::min({ROWS_PER_TILE, maxRows, formerRows}));

    RowAbsmaxScaleCustomTilingData tiling;
    tiling.set_cols(cols);
    tiling.set_colsAligned(colsAligned);
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
class RowAbsmaxScaleCustom : public OpDef {
public:
    explicit RowAbsmaxScaleCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowAbsmaxScaleCustom);
}  // namespace ops
