#include <algorithm>

#include "addcmul_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;       // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 16384;  // tunable: pow2 [256, 32768]
constexpr uint32_t BUFFER_NUM = 2;       // tunable: choice {1, 2}
// EVOLVE-BLOCK-END

constexpr uint32_t ALIGN_NUM = 16;              // elements per 32-byte block of the narrowest dtype
constexpr uint32_t QUEUE_BYTES_PER_ELEM = 8;   // x, t1, t2, y tiles, per buffer
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* value = attrs->GetAttrPointer<float>(0);

    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    // Balanced split in 32-byte blocks: the first formerNum cores take one block more than
    // the others, so no core idles while another finishes a long tail. The very last core
    // also takes the elements past the last whole block.
    uint32_t alignedBlocks = (totalLength + ALIGN_NUM - 1) / ALIGN_NUM;
    uint32_t blockDim = std::max(1u, std::min({BLOCK_DIM, coreNum, alignedBlocks}));
    uint32_t formerNum = alignedBlocks % blockDim;
    uint32_t tailLength = alignedBlocks / blockDim * ALIGN_NUM;
    uint32_t formerLength = tailLength + ALIGN_NUM;

    // Fill the UB: the largest tile that fits all buffers, then spread evenly over the tiles.
    uint32_t maxTile = (ubSize - UB_RESERVE) / (BUFFER_NUM * QUEUE_BYTES_PER_ELEM) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileLength = std::min(TILE_LENGTH, maxTile) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileNum = (formerLength + tileLength - 1) / tileLength;
    tileLength = ((formerLength + tileNum - 1) / tileNum + ALIGN_NUM - 1) / ALIGN_NUM * ALIGN_NUM;

    AddcmulCustomTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_formerNum(formerNum);
    tiling.set_formerLength(formerLength);
    tiling.set_tailLength(tailLength);
    tiling.set_tileLength(tileLength);
    tiling.set_bufferNum(BUFFER_NUM);
    tiling.set_scalarValue(*value);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class AddcmulCustom : public OpDef {
public:
    explicit AddcmulCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Input("t1")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Input("t2")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16})
            .Format({ge::FORMAT_ND});
        this->Attr("value").AttrType(OPTIONAL).Float(0.5);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AddcmulCustom);
}  // namespace ops
