#include "row_center_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 1; // tunable: pow2 [1, 32]
// EVOLVE-BLOCK-END

constexpr uint32_t TENSOR_COUNT = 3;    // float row tiles the kernel keeps in UB
constexpr uint32_t UB_RESERVE = 16 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t cols = shape.GetDim(shape.GetDimNum() - 1);
    uint32_t rows = shape.GetShapeSize() / cols;
    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    if (blockDim > rows) {
        blockDim = rows;
    }
    uint32_t tailRows = rows / blockDim;
    uint32_t formerNum = rows % blockDim;
    uint32_t formerRows = tailRows + 1;

    // Room for two buffers of every row tile, so the kernel may double-buffer.
    uint32_t maxRows = (ubSize - UB_RESERVE) / (2 * TENSOR_COUNT * cols * sizeof(float));
    uint32_t rowsPerTile = ROWS_PER_TILE < maxRows ? ROWS_PER_TILE : maxRows;
    if (rowsPerTile == 0) {
        rowsPerTile = 1;
    }

    RowCenterCustomTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_formerNum(formerNum);
    tiling.set_formerRows(formerRows);
    tiling.set_tailRows(tailRows);
    tiling.set_rowsPerTile(rowsPerTile);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class RowCenterCustom : public OpDef {
public:
    explicit RowCenterCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowCenterCustom);
}  // namespace ops
