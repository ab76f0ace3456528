#include <algorithm>

#include "mlp_block_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 32;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 1;  // tunable: range [1, 8]
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
    uint32_t cols = shape.GetDim(shape.GetDimNum() - 1);
    uint32_t rows = shape.GetShapeSize() / cols;
    if (cols % MASK_ALIGN != 0) {
        return ge::GRAPH_FAILED;  // all rows are copied as whole 32-byte blocks
    }
    const float* keepScale = context->GetAttrs()->GetAttrPointer<float>(0);

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    blockDim = (rows + rowsPerCore - 1) / rowsPerCore;

    // Per row: x, residual and y in half, the mask, its half copy and two float rows.
    // Fixed: the bias in half and float.
    uint32_t rowBytes = cols * (3 * 2 + 1 + 2 + 2 * 4);
    uint32_t maxRows = (ubSize - UB_RESERVE - cols * 6) / rowBytes;
    uint32_t rowsPerTile = std::max(1u, std::min({ROWS_PER_TILE, maxRows, rowsPerCore}));

    MlpBlockCustomTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_cols(cols);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowsPerTile(rowsPerTile);
    tiling.set_keepScale(*keepScale);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class MlpBlockCustom : public OpDef {
public:
    explicit MlpBlockCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("mask").ParamType(REQUIRED).DataType({ge::DT_UINT8}).Format({ge::FORMAT_ND});
        this->Input("residual").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("keep_scale").AttrType(OPTIONAL).Float(1.0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MlpBlockCustom);
}  // namespace ops
