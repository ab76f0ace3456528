#include <algorithm>

#include "cross_entropy_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 20;     // tunable: range [1, 40]
constexpr uint32_t ROWS_PER_TILE = 8;  // tunable: range [8, 64] step 8
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 8;  // floats (and int32) per 32-byte block
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t classes = shape.GetDim(shape.GetDimNum() - 1);
    uint32_t rows = shape.GetShapeSize() / classes;
    uint32_t classesAligned = (classes + ALIGN_NUM - 1) / ALIGN_NUM * ALIGN_NUM;

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, rows}));
    uint32_t rowsPerCore = (rows + blockDim - 1) / blockDim;
    blockDim = (rows + rowsPerCore - 1) / rowsPerCore;

    // Per row: the logits, the target and the loss. Fixed: an exp row, the workspace, the slot.
    uint32_t fixedBytes = (2 * classesAligned + ALIGN_NUM) * sizeof(float);
    uint32_t maxRows = (ubSize - UB_RESERVE - fixedBytes) / ((classesAligned + 2) * sizeof(float)) / 8 * 8;
    uint32_t rowsPerTile = std::max(1u, std::min({ROWS_PER_TILE, maxRows, rowsPerCore}));

    CrossEntropyCustomTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_classes(classes);
    tiling.set_classesAligned(classesAligned);
    tiling.set_rowsPerCore(rowsPerCore);
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
class CrossEntropyCustom : public OpDef {
public:
    explicit CrossEntropyCustom(const char* name) : OpDef(name)
    {
        this->Input("logits").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("target").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Output("loss").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CrossEntropyCustom);
}  // namespace ops
