// Test operator host side: the k largest values of each row of x [N, C] (C a multiple of 32)
// and their column indices, largest first; rows split over the vector cores; the Sort library's
// temporary buffer sized by GetSortTmpSize.
#include "register/op_def_registry.h"
#include "sort_topk_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
constexpr uint32_t SORT_REPEAT_ELEMS = 32;

static ge::graphStatus SortTopkTiling(gert::TilingContext* context)
{
    SortTopkCustomTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    const gert::Shape& x = context->GetInputShape(0)->GetStorageShape();
    const uint32_t numCol = static_cast<uint32_t>(x.GetDim(1));
    const uint32_t numRow = static_cast<uint32_t>(x.GetDim(0));
    const int64_t* k = context->GetAttrs()->GetAttrPointer<int64_t>(0);
    if (k == nullptr || *k <= 0 || *k > numCol || numCol % SORT_REPEAT_ELEMS != 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t rowsPerCore = (numRow + coreNum - 1) / coreNum;
    const uint32_t usedCoreNum = (numRow + rowsPerCore - 1) / rowsPerCore;
    tiling.set_numCol(numCol);
    tiling.set_k(static_cast<uint32_t>(*k));
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowsLastCore(numRow - rowsPerCore * (usedCoreNum - 1));
    tiling.set_sortTmpSize(AscendC::GetSortTmpSize(ascendcPlatform, numCol, sizeof(float)));
    context->SetBlockDim(usedCoreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    context->GetWorkspaceSizes(1)[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class SortTopkCustom : public OpDef {
public:
    explicit SortTopkCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("values").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("indices").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Attr("k").Int();
        this->AICore().SetTiling(optiling::SortTopkTiling);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SortTopkCustom);
}  // namespace ops
