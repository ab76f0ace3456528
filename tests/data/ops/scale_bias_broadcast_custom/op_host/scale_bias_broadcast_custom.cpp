// Test operator host side: y[r, c] = x[r, c] * scale[r] + bias[c] (scale [N, 1], bias [1, C]),
// rows split over the vector cores and looped through the UB.
#include <algorithm>

#include "register/op_def_registry.h"
#include "scale_bias_broadcast_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
constexpr uint32_t ROWS_PER_LOOP = 8;

static ge::graphStatus ScaleBiasBroadcastTiling(gert::TilingContext* context)
{
    ScaleBiasBroadcastTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = platform.GetCoreNumAiv();
    const gert::Shape& xShape = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& biasShape = context->GetInputShape(2)->GetStorageShape();
    const uint32_t numCol = static_cast<uint32_t>(xShape.GetDim(1));
    const uint32_t numRow = static_cast<uint32_t>(xShape.GetDim(0));
    if (biasShape.GetShapeSize() != numCol || numCol % 8 != 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t rowsPerCore = (numRow + coreNum - 1) / coreNum;
    const uint32_t usedCoreNum = (numRow + rowsPerCore - 1) / rowsPerCore;
    tiling.set_numCol(numCol);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowsLastCore(numRow - rowsPerCore * (usedCoreNum - 1));
    tiling.set_rowsPerLoop(std::min(rowsPerCore, ROWS_PER_LOOP));
    context->SetBlockDim(usedCoreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ScaleBiasBroadcastCustom : public OpDef {
public:
    explicit ScaleBiasBroadcastCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("scale").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("bias").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::ScaleBiasBroadcastTiling);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaleBiasBroadcastCustom);
}  // namespace ops
