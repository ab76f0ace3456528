#include <algorithm>
#include <cmath>

#include "attention_block_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr int32_t BLOCK_DIM = 2;   // tunable: range [1, 20]
constexpr int32_t ROW_BLOCK = 16;  // tunable: choice {16, 32, 64}
constexpr int32_t BASE_K = 32;     // tunable: choice {16, 32, 64, 128, 256}
// EVOLVE-BLOCK-END

// One head of attention, a MIX kernel: each AIV owns rowsPerCore rows of q and walks them in
// blocks of rowBlock rows. Both products are single-core Matmul tilings over one row block.
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const gert::Shape& qShape = context->GetInputShape(0)->GetStorageShape();
    int32_t s = qShape.GetDim(0);
    int32_t d = qShape.GetDim(1);
    int32_t groups = std::max(1, std::min<int32_t>(BLOCK_DIM, ascendcPlatform.GetCoreNumAic()));
    int32_t rowBlock = std::min<int32_t>(ROW_BLOCK, s);
    // Whole row blocks per AIV; the AIVs past the last row have none.
    int32_t blocks = (s + rowBlock - 1) / rowBlock;
    int32_t blocksPerCore = (blocks + 2 * groups - 1) / (2 * groups);
    int32_t rowsPerCore = blocksPerCore * rowBlock;
    groups = std::max(1, ((s + rowsPerCore - 1) / rowsPerCore + 1) / 2);

    AttentionBlockCustomTilingData tiling;
    matmul_tiling::MatmulApiTiling scoreTiling(ascendcPlatform);
    scoreTiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                         matmul_tiling::DataType::DT_FLOAT16);
    scoreTiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                         matmul_tiling::DataType::DT_FLOAT16, true);
    scoreTiling.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                         matmul_tiling::DataType::DT_FLOAT);
    scoreTiling.SetShape(rowBlock, s, d);
    scoreTiling.SetOrgShape(s, s, d);
    scoreTiling.SetFixSplit(rowBlock, std::min<int32_t>(s, 256), std::min<int32_t>(BASE_K, d));
    scoreTiling.SetBias(false);
    if (scoreTiling.GetTiling(tiling.scoreTiling) == -1) {
        return ge::GRAPH_FAILED;
    }
    matmul_tiling::MatmulApiTiling valueTiling(ascendcPlatform);
    valueTiling.SetAType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                         matmul_tiling::DataType::DT_FLOAT16);
    valueTiling.SetBType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                         matmul_tiling::DataType::DT_FLOAT16);
    valueTiling.SetCType(matmul_tiling::TPosition::GM, matmul_tiling::CubeFormat::ND,
                         matmul_tiling::DataType::DT_FLOAT);
    valueTiling.SetShape(rowBlock, d, s);
    valueTiling.SetOrgShape(s, d, s);
    valueTiling.SetFixSplit(rowBlock, d, std::min<int32_t>(BASE_K, s));
    valueTiling.SetBias(false);
    if (valueTiling.GetTiling(tiling.valueTiling) == -1) {
        return ge::GRAPH_FAILED;
    }
    tiling.set_seqLen(s);
    tiling.set_headDim(d);
    tiling.set_rowsPerCore(rowsPerCore);
    tiling.set_rowBlock(rowBlock);
    tiling.set_scale(1.0f / std::sqrt(static_cast<float>(d)));
    context->SetBlockDim(groups);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    // Per AIV: its scores (float) and probabilities (half) for one row block.
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = static_cast<size_t>(2 * groups) * rowBlock * s * (sizeof(float) + sizeof(uint16_t));
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class AttentionBlockCustom : public OpDef {
public:
    explicit AttentionBlockCustom(const char* name) : OpDef(name)
    {
        this->Input("q").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("k").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("v").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("out").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AttentionBlockCustom);
}  // namespace ops
