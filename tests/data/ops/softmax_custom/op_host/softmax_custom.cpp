// Test operator host side: softmax over the last axis of a float tensor through the SoftMax
// library; the rows are split over the vector cores, each loop holds rowsPerLoop rows and its
// SoftMaxTiling is computed for that block with the temporary buffer the library asks for.
#include <algorithm>

#include "register/op_def_registry.h"
#include "softmax_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"

using namespace AscendC;

namespace optiling {
namespace softmax_custom {
constexpr uint32_t MAX_ROWS_PER_LOOP = 16;
constexpr uint32_t STAT_BYTES_PER_ROW = 32;  // one block of max and one of sum per row

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    SoftmaxCustomTilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    const uint32_t numCol = shape.GetDim(shape.GetDimNum() - 1);
    const uint32_t numRow = shape.GetShapeSize() / numCol;
    if (coreNum == 0 || numCol == 0 || numCol * sizeof(float) % 32 != 0) {
        return ge::GRAPH_FAILED;
    }
    const uint32_t rowsPerCore = (numRow + coreNum - 1) / coreNum;
    const uint32_t usedCoreNum = (numRow + rowsPerCore - 1) / rowsPerCore;
    uint32_t rowsPerLoop = std::min(rowsPerCore, MAX_ROWS_PER_LOOP);

    std::vector<int64_t> dims = {static_cast<int64_t>(rowsPerLoop), static_cast<int64_t>(numCol)};
    ge::Shape srcShape(dims);
    const uint32_t tmpSize = GetSoftMaxMinTmpSize(srcShape, sizeof(float), false);
    const uint64_t need = static_cast<uint64_t>(rowsPerLoop) * numCol * sizeof(float) * 4 +
                          rowsPerLoop * STAT_BYTES_PER_ROW * 2 + tmpSize;
    if (need > ubSize) {
        return ge::GRAPH_FAILED;
    }
    SoftMaxTilingFunc(srcShape, sizeof(float), tmpSize, tiling.softmaxTiling);

    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowsLastCore(numRow - (usedCoreNum - 1) * rowsPerCore);
    tiling.set_rowsPerLoop(rowsPerLoop);
    tiling.set_numCol(numCol);
    tiling.set_tmpBufferSize(tmpSize);
    context->SetBlockDim(usedCoreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = ascendcPlatform.GetLibApiWorkSpaceSize();
    return ge::GRAPH_SUCCESS;
}
}  // namespace softmax_custom
}  // namespace optiling

namespace ops {
class SoftmaxCustom : public OpDef {
public:
    explicit SoftmaxCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::softmax_custom::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(SoftmaxCustom);
}  // namespace ops
