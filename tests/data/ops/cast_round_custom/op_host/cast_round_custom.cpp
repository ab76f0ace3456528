// Test operator host side: y = int32(x) rounded as the round_mode attribute says; the mode is
// the tiling key (1 rint, 2 floor, 3 ceil, 4 round, 5 trunc), as public cast operators select
// their kernel branch.
#include <cstring>

#include "cast_round_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
namespace {
constexpr uint32_t ELEMS_PER_BLOCK = 8;  // float and int32 both
constexpr uint32_t TILE_LENGTH = 2048;

uint64_t TilingKeyOf(const char* mode)
{
    const char* modes[] = {"rint", "floor", "ceil", "round", "trunc"};
    for (uint64_t i = 0; i < sizeof(modes) / sizeof(modes[0]); ++i) {
        if (mode != nullptr && strcmp(mode, modes[i]) == 0) {
            return i + 1;
        }
    }
    return 0;
}
}  // namespace

static ge::graphStatus CastRoundTiling(gert::TilingContext* context)
{
    CastRoundCustomTilingData tiling;
    const uint64_t tilingKey = TilingKeyOf(context->GetAttrs()->GetStr(0));
    if (tilingKey == 0) {
        return ge::GRAPH_FAILED;
    }
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    const uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    const uint64_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint64_t blocks = (total + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK;
    uint64_t blocksPerCore = (blocks + coreNum - 1) / coreNum;
    uint32_t perCoreLength = static_cast<uint32_t>(blocksPerCore * ELEMS_PER_BLOCK);
    uint32_t usedCoreNum = static_cast<uint32_t>((total + perCoreLength - 1) / perCoreLength);

    tiling.set_totalLength(total);
    tiling.set_perCoreLength(perCoreLength);
    tiling.set_tileLength(TILE_LENGTH);
    context->SetTilingKey(tilingKey);
    context->SetBlockDim(usedCoreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* currentWorkspace = context->GetWorkspaceSizes(1);
    currentWorkspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class CastRoundCustom : public OpDef {
public:
    explicit CastRoundCustom(const char* name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        this->Output("y").ParamType(REQUIRED).DataType({ge::DT_INT32}).Format({ge::FORMAT_ND});
        this->Attr("round_mode").AttrType(OPTIONAL).String("rint");
        this->AICore().SetTiling(optiling::CastRoundTiling);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(CastRoundCustom);
}  // namespace ops
