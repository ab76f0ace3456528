// Test operator host side: the maximum of each row and its first index (top-1 per row), rows
// split over the vector cores.
#include "register/op_def_registry.h"
#include "row_argmax_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingRowArgmax(gert::TilingContext* context)
{
    RowArgmaxCustomTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    const gert::Shape& shape = context->GetInputShape(0)->GetOriginShape();
    const uint32_t numCol = static_cast<uint32_t>(shape.GetDim(shape.GetDimNum() - 1));
    const uint32_t numRow = static_cast<uint32_t>(shape.GetShapeSize() / numCol);
    const uint32_t rowsPerCore = (numRow + coreNum - 1) / coreNum;
    const uint32_t usedCoreNum = (numRow + rowsPerCore - 1) / rowsPerCore;
    tiling.set_numCol(numCol);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowsLastCore(numRow - rowsPerCore * (usedCoreNum - 1));
    context->SetBlockDim(usedCoreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class RowArgmaxCustom : public OpDef {
public:
    explicit RowArgmaxCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("values").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("indices").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingRowArgmax);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RowArgmaxCustom);
}  // namespace ops
