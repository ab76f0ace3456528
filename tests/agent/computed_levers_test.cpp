// Template synthesis on tiling programs that keep their levers where real ones do (issue 35):
// the core count from the platform, the UB budget from GetCoreMemSize. The programs are ours,
// written in the style of public AscendC host files (a platform object, a shape split, a tiling
// struct filled by setters), and read with libclang against the shim's headers.
#include <doctest/doctest.h>

#include "agent/heuristics/heuristic_mutator.hpp"
#include "agent/heuristics/template_synthesis.hpp"
#include "agent/kernel_text/tiling_dataflow.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

// The core count comes from the platform; nothing is a named integer constant.
const char* kCoreCountTiling = R"(#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(RowScaleTilingData)
TILING_DATA_FIELD_DEF(uint32_t, rowsPerCore);
TILING_DATA_FIELD_DEF(uint32_t, tailRows);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(RowScale, RowScaleTilingData)

static ge::graphStatus RowScaleTiling(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint32_t rows = context->GetInputShape(0)->GetStorageShape().GetDim(0);
    uint32_t usedCores = rows < coreNum ? rows : coreNum;
    RowScaleTilingData tiling;
    tiling.set_rowsPerCore(rows / usedCores);
    tiling.set_tailRows(rows % usedCores);
    context->SetBlockDim(usedCores);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
)";

// The UB size is queried and divided among the buffers; the core count is a static local.
const char* kUbBudgetTiling = R"(#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherRowsTilingData)
TILING_DATA_FIELD_DEF(uint32_t, tileRows);
TILING_DATA_FIELD_DEF(uint32_t, coreUsed);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(GatherRows, GatherRowsTilingData)

static ge::graphStatus TilingForGatherRows(gert::TilingContext* context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    static uint32_t aivNum = ascendcPlatform.GetCoreNumAiv();
    uint64_t ubSize;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t rowBytes = context->GetInputShape(0)->GetStorageShape().GetDim(1) * sizeof(float);
    uint32_t tileRows = static_cast<uint32_t>(ubSize / 3 / rowBytes);
    GatherRowsTilingData tiling;
    tiling.set_tileRows(tileRows);
    tiling.set_coreUsed(aivNum);
    context->SetBlockDim(aivNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
)";

// The buffer depth is computed from the shape and handed to the kernel through the tiling data.
const char* kDepthTiling = R"(#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(SoftShrinkTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileLength);
TILING_DATA_FIELD_DEF(uint32_t, bufferNum);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(SoftShrink, SoftShrinkTilingData)

static ge::graphStatus TilingForSoftShrink(gert::TilingContext* context)
{
    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t doubleBuffer = totalLength > 65536 ? 2 : 1;
    uint32_t tileLength = 8192 / doubleBuffer;
    SoftShrinkTilingData tiling;
    tiling.set_totalLength(totalLength);
    tiling.set_tileLength(tileLength);
    tiling.set_bufferNum(doubleBuffer);
    context->SetBlockDim(1);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
)";

const char* kDepthKernel = R"(#include "kernel_operator.h"
using namespace AscendC;
class KernelSoftShrink {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t tileLength, uint32_t bufferNum)
    {
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(float));
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueueX;
};
extern "C" __global__ __aicore__ void soft_shrink(GM_ADDR x, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftShrink op;
    op.Init(x, tilingData.tileLength, tilingData.bufferNum);
}
)";

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("synthesis lets the search override a computed buffer depth, 0 keeping it") {
    result<synthesized_template> t = synthesize_template(kDepthTiling, {}, kDepthKernel);
    REQUIRE(t.ok());
    const tunable* depth = nullptr;
    for (const tunable& u : t->tunables) {
      if (u.name == "BUFFER_DEPTH") depth = &u;
    }
    REQUIRE(depth != nullptr);
    CHECK(depth->value == 0);
    CHECK(depth->choices == std::vector<int64_t>{0, 1, 2});
    CHECK(tunable_role(*depth) == tiling_role::buffer_num);
    CHECK(depth->note.find("`uint32_t doubleBuffer = totalLength > 65536 ? 2 : 1;`") !=
          std::string::npos);
    CHECK(t->source.find("    uint32_t doubleBuffer = totalLength > 65536 ? 2 : 1;\n"
                         "    if (BUFFER_DEPTH != 0) doubleBuffer = BUFFER_DEPTH;\n"
                         "    uint32_t tileLength = 8192 / doubleBuffer;") != std::string::npos);
    // Without the kernel nothing says the variable is a depth.
    result<synthesized_template> blind = synthesize_template(kDepthTiling, {}, "");
    CHECK((!blind.ok() || blind->source.find("BUFFER_DEPTH") == std::string::npos));
  }

  TEST_CASE("libclang finds the platform's core count and UB size in a tiling function") {
    result<std::vector<computed_lever>> found =
        find_computed_levers(kUbBudgetTiling, synthesis_options::default_tiling_include_dirs());
    REQUIRE(found.ok());
    // Core count, UB size, and the rows per tile divided out of the UB (tile_split_levers_test).
    REQUIRE(found->size() == 3);
    CHECK((*found)[2].kind == computed_lever_kind::tile_elements);
    CHECK((*found)[0].kind == computed_lever_kind::core_count);
    CHECK((*found)[0].expression == "ascendcPlatform.GetCoreNumAiv()");
    CHECK((*found)[1].kind == computed_lever_kind::ub_bytes);
    CHECK((*found)[1].variable == "ubSize");
    const std::string statement(kUbBudgetTiling + (*found)[1].statement_begin,
                                (*found)[1].statement_end - (*found)[1].statement_begin);
    CHECK(statement ==
          "ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);");
    // A name in a comment or a string is no call.
    result<std::vector<computed_lever>> none = find_computed_levers(
        "// platform.GetCoreNumAiv();\nconst char* s = \"x.GetCoreNumAiv()\";\n",
        synthesis_options::default_tiling_include_dirs());
    REQUIRE(none.ok());
    CHECK(none->empty());
  }

  TEST_CASE("synthesis caps the platform's core count with a tunable that starts at all cores") {
    synthesis_options o;
    o.cores = 48;
    result<synthesized_template> t = synthesize_template(kCoreCountTiling, o);
    REQUIRE(t.ok());
    REQUIRE(t->tunables.size() == 1);
    const tunable& core = t->tunables[0];
    CHECK(core.name == "CORE_COUNT");
    CHECK(core.value == 48);  // the platform's count: the baseline is unchanged
    CHECK(core.lo == 1);
    CHECK(core.hi == 48);
    CHECK(tunable_role(core) == tiling_role::block_dim);
    REQUIRE(t->levers.size() == 1);
    CHECK(t->levers[0].expression == "platform.GetCoreNumAiv()");
    CHECK(core.note.find("`platform.GetCoreNumAiv()`") != std::string::npos);
    CHECK(t->source.find("uint32_t coreNum = (CORE_COUNT < (platform.GetCoreNumAiv()) ? "
                         "CORE_COUNT : (platform.GetCoreNumAiv()));") != std::string::npos);
    // The search can set it: 12 cores.
    result<std::string> applied = apply_values(t->source, {{"CORE_COUNT", 12}});
    REQUIRE(applied.ok());
    CHECK(applied->find("constexpr uint32_t CORE_COUNT = 12;") != std::string::npos);
  }

  TEST_CASE("synthesis turns the UB size into a share the search sets, whole at the start") {
    synthesis_options o;
    o.cores = 40;
    result<synthesized_template> t = synthesize_template(kUbBudgetTiling, o);
    REQUIRE(t.ok());
    REQUIRE(t->tunables.size() == 3);  // and TILE_CAP on the rows per tile
    const tunable& share = t->tunables[1];
    CHECK(share.name == "UB_SHARE_64THS");
    CHECK(share.value == 64);
    CHECK(share.lo == 16);
    CHECK(share.hi == 64);
    CHECK(tunable_role(share) == tiling_role::ub_size);
    CHECK(share.note.find("ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, "
                          "ubSize)") != std::string::npos);
    CHECK(t->source.find("    ubSize = ubSize / 64 * UB_SHARE_64THS;") != std::string::npos);
    // The static local keeps its initializer form, capped.
    CHECK(t->source.find("static uint32_t aivNum = (CORE_COUNT < (ascendcPlatform.GetCoreNumAiv()) "
                         "? CORE_COUNT : (ascendcPlatform.GetCoreNumAiv()));") !=
          std::string::npos);
    // A constant taken for its name alone does not stand in for the platform's core count.
    const std::string named =
        std::string("constexpr uint32_t MAX_COPY_BLOCK_COUNT = 4095;\n") + kUbBudgetTiling;
    result<synthesized_template> both = synthesize_template(named, o);
    REQUIRE(both.ok());
    CHECK(both->source.find("constexpr uint32_t CORE_COUNT = 40;") != std::string::npos);
    // Without the data-flow reading there is no lever at all: the program names no constant.
    o.read_dataflow = false;
    CHECK_FALSE(synthesize_template(kUbBudgetTiling, o).ok());
  }
}
