#include <algorithm>

#include "matmul_resident_panel_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 20;  // tunable: range [1, 20]
constexpr uint32_t BASE_M = 128;    // tunable: choice {16, 32, 64, 128}
constexpr uint32_t BASE_N = 32;     // tunable: choice {16, 32, 64, 128, 256}
constexpr uint32_t BASE_K = 64;     // tunable: choice {16, 32, 64, 128, 256}
// EVOLVE-BLOCK-END

constexpr uint32_t CUBE_BLOCK = 16;  // fractal side for half

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t aicNum = platform.GetCoreNumAic();

    const gert::Shape& aShape = context->GetInputShape(0)->GetStorageShape();
    const gert::Shape& bShape = context->GetInputShape(1)->GetStorageShape();
    uint32_t m = aShape.GetDim(0);
    uint32_t k = aShape.GetDim(1);
    uint32_t n = bShape.GetDim(1);
    uint32_t baseM = std::min(BASE_M, m);
    uint32_t baseN = std::min(BASE_N, n);
    uint32_t baseK = std::min(BASE_K, k);
    if (m % baseM != 0 || n % baseN != 0 || k % baseK != 0 || baseM % CUBE_BLOCK != 0 ||
        baseN % CUBE_BLOCK != 0 || baseK % CUBE_BLOCK != 0) {
        return ge::GRAPH_FAILED;  // whole base tiles only
    }
    uint32_t panels = m / baseM;
    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, aicNum, panels}));

    MatmulResidentPanelCustomTilingData tiling;
    tiling.set_m(m);
    tiling.set_n(n);
    tiling.set_k(k);
    tiling.set_baseM(baseM);
    tiling.set_baseN(baseN);
    tiling.set_baseK(baseK);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class MatmulResidentPanelCustom : public OpDef {
public:
    explicit MatmulResidentPanelCustom(const char* name) : OpDef(name)
    {
        this->Input("a").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("b").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("c").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(MatmulResidentPanelCustom);
}  // namespace ops
