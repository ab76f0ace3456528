// Test operator host side: the segments (offsets minus one) split over the vector cores by
// ceiling division; only the cores that get segments are launched.
#include "register/op_def_registry.h"
#include "segment_sum_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const gert::StorageShape* offsetsShape = context->GetInputShape(1);
    if (offsetsShape == nullptr || offsetsShape->GetStorageShape().GetShapeSize() < 2) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t segments = static_cast<uint32_t>(offsetsShape->GetStorageShape().GetShapeSize() - 1);
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = platform.GetCoreNumAiv();
    if (coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t segmentsPerCore = (segments + coreNum - 1) / coreNum;
    SegmentSumCustomTilingData tiling;
    tiling.set_segments(segments);
    tiling.set_segmentsPerCore(segmentsPerCore);
    context->SetBlockDim((segments + segmentsPerCore - 1) / segmentsPerCore);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class SegmentSumCustom : public OpDef {
public:
    explicit SegmentSumCustom(const char* name) : OpDef(name)
    {
        this->Input("values").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Input("offsets").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Output("out").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SegmentSumCustom);
}  // namespace ops
