// Test operator host side: rows of the lookup split over the vector cores by ceiling division;
// only the cores that get rows are launched.
#include "embedding_gather_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::StorageShape* tableShape = context->GetInputShape(0);
    const gert::StorageShape* indicesShape = context->GetInputShape(1);
    if (tableShape == nullptr || indicesShape == nullptr) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t dim = static_cast<uint32_t>(tableShape->GetStorageShape().GetDim(1));
    const uint32_t rows = static_cast<uint32_t>(indicesShape->GetStorageShape().GetShapeSize());
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = platform.GetCoreNumAiv();
    if (rows == 0 || dim == 0 || coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t rowsPerCore = (rows + coreNum - 1) / coreNum;
    const uint32_t usedCores = (rows + rowsPerCore - 1) / rowsPerCore;

    EmbeddingGatherCustomTilingData tiling;
    tiling.set_rows(rows);
    tiling.set_dim(dim);
    tiling.set_rowsPerCore(rowsPerCore);
    context->SetBlockDim(usedCores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = platform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class EmbeddingGatherCustom : public OpDef {
public:
    explicit EmbeddingGatherCustom(const char* name) : OpDef(name)
    {
        this->Input("table").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("indices").ParamType(REQUIRED).DataType({ge::DT_INT64}).Format({ge::FORMAT_ND});
        this->Output("out").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(EmbeddingGatherCustom);
}  // namespace ops
