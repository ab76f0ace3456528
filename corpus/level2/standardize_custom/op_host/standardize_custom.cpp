#include "standardize_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 8;      // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 1024;  // tunable: pow2 [256, 16384]
// EVOLVE-BLOCK-END

constexpr uint32_t CHUNK = 64;            // elements per 256 bytes: the unit a core's share is cut in
constexpr uint32_t TENSOR_COUNT = 3;     // float tiles the kernel keeps in UB
constexpr uint32_t UB_RESERVE = 16 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    const float* mean = attrs->GetAttrPointer<float>(0);
    const float* stddev = attrs->GetAttrPointer<float>(1);

    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t blockDim = BLOCK_DIM < coreNum ? BLOCK_DIM : coreNum;
    uint32_t chunks = (totalLength + CHUNK - 1) / CHUNK;
    if (blockDim > chunks) {
        blockDim = chunks;
    }
    uint32_t blockLength = (chunks + blockDim - 1) / blockDim * CHUNK;
    blockDim = (totalLength + blockLength - 1) / blockLength;

    // Room for two buffers of every tile, so the kernel may double-buffer.
    uint32_t maxTile = (ubSize - UB_RESERVE) / (2 * TENSOR_COUNT * sizeof(float)) / CHUNK * CHUNK;
    uint32_t tileLength = TILE_LENGTH < maxTile ? TILE_LENGTH : maxTile;

    StandardizeCustomTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
    tiling.set_mean(*mean);
    tiling.set_stddev(*stddev);
    context->SetBlockDim(blockDim);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class StandardizeCustom : public OpDef {
public:
    explicit StandardizeCustom(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT})
            .Format({ge::FORMAT_ND});
        this->Attr("mean").AttrType(OPTIONAL).Float(0.5);
        this->Attr("stddev").AttrType(OPTIONAL).Float(1.5);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(StandardizeCustom);
}  // namespace ops
