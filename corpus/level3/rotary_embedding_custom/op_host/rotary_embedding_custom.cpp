#include <algorithm>

#include "rotary_embedding_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;       // tunable: range [1, 40]
constexpr uint32_t TOKENS_PER_TILE = 4;  // tunable: range [1, 32]
constexpr uint32_t BUFFER_NUM = 1;       // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 16;  // halves per 32-byte block
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    const gert::Shape& shape = context->GetInputShape(0)->GetStorageShape();
    uint32_t headDim = shape.GetDim(2);
    uint32_t heads = shape.GetDim(1);
    uint32_t tokens = shape.GetDim(0);
    if (headDim % (2 * ALIGN_NUM) != 0) {
        return ge::GRAPH_FAILED;  // each half of a head is a whole number of 32-byte blocks
    }

    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, tokens}));
    uint32_t tokensPerCore = (tokens + blockDim - 1) / blockDim;
    blockDim = (tokens + tokensPerCore - 1) / tokensPerCore;

    // Per token and buffer: x and y (heads * headDim each), cos and sin; plus two work rows.
    uint32_t tokenBytes = (BUFFER_NUM * (2 * heads + 2) + 2) * headDim * 2;
    uint32_t maxTokens = (ubSize - UB_RESERVE) / tokenBytes;
    uint32_t tokensPerTile = std::max(1u, std::min({TOKENS_PER_TILE, maxTokens, tokensPerCore}));

    RotaryEmbeddingCustomTilingData tiling;
    tiling.set_tokens(tokens);
    tiling.set_heads(heads);
    tiling.set_headDim(headDim);
    tiling.set_tokensPerCore(tokensPerCore);
    tiling.set_tokensPerTile(tokensPerTile);
    tiling.set_bufferNum(BUFFER_NUM);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class RotaryEmbeddingCustom : public OpDef {
public:
    explicit RotaryEmbeddingCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("cos").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("sin").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(RotaryEmbeddingCustom);
}  // namespace ops
