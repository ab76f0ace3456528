#include <algorithm>

#include "cast_fp16_fp32_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 20;      // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 4096;  // tunable: pow2 [256, 32768]
constexpr uint32_t BUFFER_NUM = 1;      // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 16;              // elements per 32-byte block of the narrowest dtype
constexpr uint32_t QUEUE_BYTES_PER_ELEM = 6;   // x, y tiles, per buffer
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();

    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    // Each core gets a whole number of 32-byte blocks; the last core takes what is left.
    uint32_t alignedBlocks = (totalLength + ALIGN_NUM - 1) / ALIGN_NUM;
    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, alignedBlocks}));
    uint32_t blockLength = (alignedBlocks + blockDim - 1) / blockDim * ALIGN_NUM;
    blockDim = (totalLength + blockLength - 1) / blockLength;

    uint32_t maxTile = (ubSize - UB_RESERVE) / (BUFFER_NUM * QUEUE_BYTES_PER_ELEM) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileLength = std::min(TILE_LENGTH, maxTile) / ALIGN_NUM * ALIGN_NUM;

    CastFp16Fp32CustomTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
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
class CastFp16Fp32Custom : public OpDef {
public:
    explicit CastFp16Fp32Custom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CastFp16Fp32Custom);
}  // namespace ops
