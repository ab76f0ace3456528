#include <algorithm>

#include "bias_add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 32; // tunable: range [1, 255]
constexpr uint32_t BUFFER_NUM = 2;     // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t HALVES_PER_REPEAT = 128;  // one 256-byte vector repeat
constexpr uint32_t MAX_REPEAT = 255;
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
    // Whole repeats per row, and a row stride (in 32-byte blocks) that fits the 8-bit repeat stride.
    if (cols % HALVES_PER_REPEAT != 0 || cols * sizeof(uint16_t) / 32 > 255) {
        return ge::GRAPH_FAILED;
    }

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t formerNum = rows % blockDim;
    uint32_t tailRows = rows / blockDim;
    uint32_t formerRows = tailRows + 1;

    // x and y tiles per buffer, plus the bias row.
    uint32_t rowBytes = cols * sizeof(uint16_t);
    uint32_t maxRows = (ubSize - UB_RESERVE - rowBytes) / (BUFFER_NUM * 2 * rowBytes);
    uint32_t rowsPerTile = std::max(1u, std::min({ROWS_PER_TILE, maxRows, MAX_REPEAT, formerRows}));

    BiasAddCustomTilingData tiling;
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
class BiasAddCustom : public OpDef {
public:
    explicit BiasAddCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(BiasAddCustom);
}  // namespace ops
