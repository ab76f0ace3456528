#include <algorithm>

#include "swiglu_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 24;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 4;  // tunable: range [1, 32]
constexpr uint32_t BUFFER_NUM = 1;     // tunable: choice {1, 2}
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
    uint32_t halfCols = cols / 2;
    if (cols % 2 != 0 || halfCols % ALIGN_NUM != 0) {
        return ge::GRAPH_FAILED;  // both halves are copied as whole 32-byte blocks
    }

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    blockDim = (rows + rowsPerCore - 1) / rowsPerCore;

    // Per row: gate, up and output halves per buffer, two float work rows.
    uint32_t rowBytes = halfCols * (BUFFER_NUM * 3 * 2 + 2 * 4);
    uint32_t maxRows = (ubSize - UB_RESERVE) / rowBytes;
    uint32_t rowsPerTile = std::max(1u, std::min({ROWS_PER_TILE, maxRows, rowsPerCore}));

    SwigluCustomTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_halfCols(halfCols);
    tiling.set_rowsPerCore(rowsPerCore);
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
class SwigluCustom : public OpDef {
public:
    explicit SwigluCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SwigluCustom);
}  // namespace ops
