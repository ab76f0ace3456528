#include <algorithm>
#include <cmath>

#include "fused_adam_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
// EVOLVE-BLOCK-START
constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]
constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 8192]
// EVOLVE-BLOCK-END

constexpr uint32_t GROUP_NUM = 2;           // parameter tensors updated by one launch
constexpr uint32_t INPUTS_PER_GROUP = 4;    // param, grad, exp_avg, exp_avg_sq
constexpr uint32_t ALIGN_NUM = 8;           // floats per 32-byte block
constexpr uint32_t TILES_IN_UB = 4 + 3 + 1; // inputs, outputs and one work tile
constexpr uint32_t UB_RESERVE = 8 * 1024;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t coreNum = platform.GetCoreNumAiv();
    const gert::RuntimeAttrs* attrs = context->GetAttrs();
    float lr = *attrs->GetAttrPointer<float>(0);
    float beta1 = *attrs->GetAttrPointer<float>(1);
    float beta2 = *attrs->GetAttrPointer<float>(2);
    float epsilon = *attrs->GetAttrPointer<float>(3);
    int64_t step = *attrs->GetAttrPointer<int64_t>(4);

    // Each group is split over the same cores in whole 32-byte blocks.
    uint32_t blockDim = std::min(BLOCK_DIM, coreNum);
    uint32_t usedCores = 1;
    uint32_t totalLength[GROUP_NUM] = {};
    uint32_t blockLength[GROUP_NUM] = {};
    for (uint32_t g = 0; g < GROUP_NUM; g++) {
        totalLength[g] = context->GetInputShape(g * INPUTS_PER_GROUP)->GetStorageShape().GetShapeSize();
        uint32_t alignedBlocks = (totalLength[g] + ALIGN_NUM - 1) / ALIGN_NUM;
        uint32_t cores = std::max(1u, std::min(blockDim, alignedBlocks));
        blockLength[g] = (alignedBlocks + cores - 1) / cores * ALIGN_NUM;
        usedCores = std::max(usedCores, (totalLength[g] + blockLength[g] - 1) / blockLength[g]);
    }
    uint32_t maxTile = (ubSize - UB_RESERVE) / (TILES_IN_UB * sizeof(float)) / ALIGN_NUM * ALIGN_NUM;
    uint32_t tileLength = std::min(TILE_LENGTH, maxTile);

    FusedAdamCustomTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_blockLength(blockLength);
    tiling.set_tileLength(tileLength);
    tiling.set_beta1(beta1);
    tiling.set_beta2(beta2);
    tiling.set_epsilon(epsilon);
    // Bias corrections of step t: p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    tiling.set_stepSize(lr / (1.0f - std::pow(beta1, static_cast<float>(step))));
    tiling.set_invBiasCorrection2(1.0f / std::sqrt(1.0f - std::pow(beta2, static_cast<float>(step))));
    context->SetBlockDim(usedCores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t* workspace = context->GetWorkspaceSizes(1);
    workspace[0] = 0;
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling

namespace ops {
class FusedAdamCustom : public OpDef {
public:
    explicit FusedAdamCustom(const char* name) : OpDef(name)
    {
        const char* inputs[] = {"param0", "grad0", "exp_avg0", "exp_avg_sq0",
                                "param1", "grad1", "exp_avg1", "exp_avg_sq1"};
        const char* outputs[] = {"param0_out", "exp_avg0_out", "exp_avg_sq0_out",
                                 "param1_out", "exp_avg1_out", "exp_avg_sq1_out"};
        for (const char* input : inputs) {
            this->Input(input).ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        }
        for (const char* output : outputs) {
            this->Output(output).ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        }
        this->Attr("lr").AttrType(REQUIRED).Float(0.001f);
        this->Attr("beta1").AttrType(OPTIONAL).Float(0.9f);
        this->Attr("beta2").AttrType(OPTIONAL).Float(0.999f);
        this->Attr("epsilon").AttrType(OPTIONAL).Float(1e-8f);
        this->Attr("step").AttrType(REQUIRED).Int(1);
        this->AICore().SetTiling(optiling::TilingFunc);
        this->AICore().AddConfig("ascend910b");
    }
};
OP_ADD(FusedAdamCustom);
}  // namespace ops
