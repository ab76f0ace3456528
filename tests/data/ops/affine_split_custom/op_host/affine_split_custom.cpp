// Test operator host side, written the way public operators write their tiling functions: no
// lever is a named constant. The core count comes from the platform, each core's share is a
// ceiling division the cores used are derived from, and the elements per loop are divided out of
// the UB size and rounded down to whole 32-byte blocks.
#include "affine_split_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t BYTES_PER_BLOCK = 32;
constexpr uint32_t RESERVED_UB_BYTES = 8 * 1024;
constexpr uint32_t UB_QUEUE_SLOTS = 4;  // the input and output queues, two slots each
}  // namespace

static ge::graphStatus TilingForAffineSplit(gert::TilingContext* context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    if (coreNum == 0) {
        return ge::GRAPH_FAILED;
    }
    uint64_t ubSize;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);

    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t elemsPerBlock = BYTES_PER_BLOCK / sizeof(float);
    uint32_t perCoreLength = (totalLength + coreNum - 1) / coreNum;
    perCoreLength = (perCoreLength + elemsPerBlock - 1) / elemsPerBlock * elemsPerBlock;
    if (perCoreLength == 0) {
        return ge::GRAPH_FAILED;
    }
    uint32_t usedCoreNum = (totalLength + perCoreLength - 1) / perCoreLength;
    uint32_t lastCoreLength = totalLength - (usedCoreNum - 1) * perCoreLength;

    uint32_t maxTileLength = (ubSize - RESERVED_UB_BYTES) / sizeof(float) / UB_QUEUE_SLOTS;
    uint32_t tileLength = maxTileLength / elemsPerBlock * elemsPerBlock;
    if (tileLength == 0) {
        return ge::GRAPH_FAILED;
    }

    AffineSplitCustomTilingData tiling;
    tiling.set_perCoreLength(perCoreLength);
    tiling.set_lastCoreLength(lastCoreLength);
    tiling.set_tileLength(tileLength);
    context->SetBlockDim(usedCoreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class AffineSplitCustom : public OpDef {
public:
    explicit AffineSplitCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->AICore().SetTiling(optiling::TilingForAffineSplit);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(AffineSplitCustom);
}  // namespace ops
