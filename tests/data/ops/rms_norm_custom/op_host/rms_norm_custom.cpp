// Test operator host side: y = x / sqrt(mean(x^2) + epsilon) * gamma over the last axis.
// Rows are split over the vector cores by ceiling division; each loop holds as many whole rows
// as the UB budget allows. Tiling key 1: float data, 2: half data (computed in float).
#include <algorithm>
#include <cstdint>

#include "register/op_def_registry.h"
#include "rms_norm_custom_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t BLOCK_BYTES = 32;
constexpr uint32_t RESERVED_UB = 16 * 1024;
constexpr uint32_t MAX_ROWS_PER_LOOP = 8;
constexpr uint64_t TILING_KEY_FLOAT = 1;
constexpr uint64_t TILING_KEY_HALF = 2;

template <typename T>
inline T CeilDiv(T a, T b)
{
    return b == 0 ? 0 : (a + b - 1) / b;
}
}  // namespace

static ge::graphStatus RmsNormTilingFunc(gert::TilingContext* context)
{
    RmsNormCustomTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    const gert::StorageShape* xShape = context->GetInputShape(0);
    const size_t dimNum = xShape->GetStorageShape().GetDimNum();
    if (dimNum == 0 || coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t numCol = xShape->GetStorageShape().GetDim(dimNum - 1);
    uint32_t numRow = xShape->GetStorageShape().GetShapeSize() / numCol;

    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* epsilon = attrs->GetAttrPointer<float>(0);
    ge::DataType dtype = context->GetInputDesc(0)->GetDataType();
    const uint32_t dtypeSize = dtype == ge::DT_FLOAT ? 4 : 2;

    // x in (double buffered), y out (double buffered), one float row of work and the square.
    const uint32_t rowBytes = numCol * (dtypeSize * 4 + sizeof(float) * 2);
    uint32_t rowsPerLoop = static_cast<uint32_t>((ubSize - RESERVED_UB) / rowBytes);
    rowsPerLoop = std::min(rowsPerLoop, MAX_ROWS_PER_LOOP);
    if (rowsPerLoop == 0 || (numCol * dtypeSize) % BLOCK_BYTES != 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t rowsPerCore = CeilDiv(numRow, coreNum);
    uint32_t usedCoreNum = CeilDiv(numRow, rowsPerCore);

    tiling.set_numRow(numRow);
    tiling.set_numCol(numCol);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowsLastCore(numRow - (usedCoreNum - 1) * rowsPerCore);
    tiling.set_rowsPerLoop(rowsPerLoop);
    tiling.set_epsilon(*epsilon);
    tiling.set_avgFactor(1.0f / static_cast<float>(numCol));

    context->SetTilingKey(dtype == ge::DT_FLOAT ? TILING_KEY_FLOAT : TILING_KEY_HALF);
    context->SetBlockDim(usedCoreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspaces = context->GetWorkspaceSizes(1);
    workspaces[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ge {
static ge::graphStatus RmsNormInferShape(gert::InferShapeContext* context)
{
    *context->GetOutputShape(0) = *context->GetInputShape(0);
    return GRAPH_SUCCESS;
}
}  // namespace ge

namespace ops {
class RmsNormCustom : public OpDef {
public:
    explicit RmsNormCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("gamma")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-6f);
        this->SetInferShape(ge::RmsNormInferShape);
        this->AICore().SetTiling(optiling::RmsNormTilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RmsNormCustom);
}  // namespace ops
