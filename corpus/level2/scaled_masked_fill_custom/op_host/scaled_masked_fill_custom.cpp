#include <algorithm>

#include "scaled_masked_fill_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 4096;  // tunable: pow2 [256, 32768]
constexpr uint32_t BUFFER_NUM = 1;      // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 32;              // elements per 32-byte block of the narrowest dtype
constexpr uint32_t QUEUE_BYTES_PER_ELEM = 5;   // x, mask, y tiles, per buffer
constexpr uint32_t TMP_BYTES_PER_ELEM = 3;  // float work tiles for the compute
constexpr uint32_t COMPARE_ALIGN = 128;  // Compare works on whole 256-byte repeats of half
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* scale = attrs->GetAttrPointer<float>(0);
    const float* fill_value = attrs->GetAttrPointer<float>(1);

    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    // Each core gets a whole number of 32-byte blocks; the last core takes what is left.
    uint32_t alignedBlocks = (totalLength + ALIGN_NUM - 1) / ALIGN_NUM;
    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, alignedBlocks}));
    uint32_t blockLength = (alignedBlocks + blockDim - 1) / blockDim * ALIGN_NUM;
    blockDim = (totalLength + blockLength - 1) / blockLength;

    uint32_t maxTile = (ubSize - UB_RESERVE) / (BUFFER_NUM * QUEUE_BYTES_PER_ELEM + TMP_BYTES_PER_ELEM) / COMPARE_ALIGN * COMPARE_ALIGN;
    uint32_t tileLength = std::min(TILE_LENGTH, maxTile) / COMPARE_ALIGN * COMPARE_ALIGN;

    ScaledMaskedFillCustomTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
    tiling.set_bufferNum(BUFFER_NUM);
    tiling.set_scale(*scale);
    tiling.set_fill_value(*fill_value);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class ScaledMaskedFillCustom : public OpDef {
public:
    explicit ScaledMaskedFillCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Input("mask")
            .ParamType(REQUIRED)
            .DataType({ge::DT_UINT8})
            .Format({ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Attr("scale").AttrType(OPTIONAL).Float(0.125);
        this->Attr("fill_value").AttrType(OPTIONAL).Float(-10000.0);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(ScaledMaskedFillCustom);
}  // namespace ops
