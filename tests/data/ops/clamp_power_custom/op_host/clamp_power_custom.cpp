// Test operator host side, in the layout of CANN's custom-operator samples: a TilingParse
// function fills a CompileInfo from the platform once, the tiling function reads it back.
#include "clamp_power_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
struct ClampPowerCompileInfo {
  uint32_t coreNum = 0;
  uint64_t ubSize = 0;
};

constexpr uint32_t BLOCK_DIM = 48;  // logical blocks: more than the 40 cores, run in waves
constexpr uint32_t TILE_NUM = 2;

static ge::graphStatus TilingPrepare(gert::TilingParseContext* context) {
  auto* compileInfo = context->GetCompiledInfo<ClampPowerCompileInfo>();
  auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  compileInfo->coreNum = ascendcPlatform.GetCoreNumAiv();
  ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, compileInfo->ubSize);
  return ge::GRAPH_SUCCESS;
}

static ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const auto* compileInfo = static_cast<const ClampPowerCompileInfo*>(context->GetCompileInfo());
  if (compileInfo == nullptr || compileInfo->coreNum == 0) return ge::GRAPH_FAILED;
  ClampPowerCustomTilingData tiling;
  const uint32_t total = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
  const uint32_t blockLength = total / BLOCK_DIM;
  if (blockLength * sizeof(float) * 2 > compileInfo->ubSize) return ge::GRAPH_FAILED;
  context->SetBlockDim(BLOCK_DIM);
  tiling.set_blockLength(blockLength);
  tiling.set_tileLength(blockLength / TILE_NUM);
  tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                      context->GetRawTilingData()->GetCapacity());
  context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
  context->GetWorkspaceSizes(1)[0] = 0;
  return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(ClampPowerCustom)
    .Tiling(TilingFunc)
    .TilingParse<ClampPowerCompileInfo>(TilingPrepare);
}  // namespace optiling
