// The host APIs of operators whose tiling reads a CompileInfo: IMPL_OP_OPTILING(op)
// .Tiling(f).TilingParse<CompileInfo>(g) registers g, TilingContext::GetCompileInfo runs it
// once on the launch's platform; plus ge::AscendString, InferShapeRangeContext and the
// std::cout/printf a host unit reaches through the shim's headers.
#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "aopt_sim/host_api.h"

namespace host_compile_info_test {

struct ScaleCompileInfo {
  uint32_t coreNum = 0;
  uint64_t ubSize = 0;
  int parses = 0;
};

int parse_calls = 0;

ge::graphStatus TilingPrepare(gert::TilingParseContext* context) {
  ++parse_calls;
  auto* compileInfo = context->GetCompiledInfo<ScaleCompileInfo>();
  auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
  compileInfo->coreNum = ascendcPlatform.GetCoreNumAiv();
  ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, compileInfo->ubSize);
  compileInfo->parses = parse_calls;
  return std::string(context->GetCompiledJson()) == "{}" ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED;
}

ge::graphStatus FailingPrepare(gert::TilingParseContext*) {
  return ge::GRAPH_FAILED;
}

ge::graphStatus TilingFunc(gert::TilingContext* context) {
  const auto* compileInfo = context->GetCompileInfo<ScaleCompileInfo>();
  if (compileInfo == nullptr) return ge::GRAPH_FAILED;
  context->SetBlockDim(compileInfo->coreNum);
  std::cout << "tiling for " << compileInfo->coreNum << " cores\n";
  std::printf("ub %llu bytes\n", static_cast<unsigned long long>(compileInfo->ubSize));
  return ge::GRAPH_SUCCESS;
}

ge::graphStatus InferShapeRange(gert::InferShapeRangeContext* context) {
  const gert::Range<gert::Shape>* in = context->GetInputShapeRange(0);
  gert::Range<gert::Shape>* out = context->GetOutputShapeRange(0);
  out->SetMin(in->GetMin());
  out->SetMax(in->GetMax());
  return ge::GRAPH_SUCCESS;
}

}  // namespace host_compile_info_test

namespace optiling {
IMPL_OP_OPTILING(HostCompileInfoScale)
    .Tiling(host_compile_info_test::TilingFunc)
    .TilingParse<host_compile_info_test::ScaleCompileInfo>(host_compile_info_test::TilingPrepare);
IMPL_OP_OPTILING(HostCompileInfoBroken)
    .Tiling(host_compile_info_test::TilingFunc)
    .TilingParse<host_compile_info_test::ScaleCompileInfo>(host_compile_info_test::FailingPrepare);
}  // namespace optiling

namespace ops {
IMPL_OP(HostCompileInfoScale).InferShapeRange(host_compile_info_test::InferShapeRange);
}  // namespace ops

using namespace host_compile_info_test;

TEST_SUITE("sim") {
  TEST_CASE("GetCompileInfo runs the registered TilingParse once on the launch's platform") {
    gert::TilingContext ctx("scale", "HostCompileInfoScale");
    ctx.mutable_platform().core_num_aiv = 24;
    ctx.mutable_platform().ub_bytes = 1 << 17;
    const int before = parse_calls;
    REQUIRE(TilingFunc(&ctx) == ge::GRAPH_SUCCESS);
    CHECK(ctx.GetBlockDim() == 24);
    const auto* info = ctx.GetCompileInfo<ScaleCompileInfo>();
    REQUIRE(info != nullptr);
    CHECK(info->ubSize == (1u << 17));
    CHECK(parse_calls == before + 1);  // cached for the rest of the launch
    CHECK(static_cast<const void*>(info) == ctx.GetCompileInfo());
  }

  TEST_CASE("without a registered or with a failing TilingParse there is no CompileInfo") {
    gert::TilingContext unknown("x", "NoSuchOp");
    CHECK(unknown.GetCompileInfo() == nullptr);
    CHECK(TilingFunc(&unknown) == ge::GRAPH_FAILED);
    gert::TilingContext broken("x", "HostCompileInfoBroken");
    CHECK(broken.GetCompileInfo<ScaleCompileInfo>() == nullptr);
  }

  TEST_CASE("ge::AscendString and InferShapeRangeContext behave as host code expects") {
    const ge::AscendString a("alpha");
    const ge::AscendString b("beta", 3);
    CHECK(std::string(a.GetString()) == "alpha");
    CHECK(b.GetLength() == 3);
    CHECK(std::string(b.GetString()) == "bet");
    CHECK(a < b);
    CHECK(a != b);
    CHECK(ge::AscendString(nullptr).GetLength() == 0);

    gert::Shape lo, hi;
    lo.AppendDim(1);
    hi.AppendDim(64);
    gert::InferShapeRangeContext ctx;
    ctx.add_input(gert::Range<gert::Shape>(&lo, &hi));
    ctx.add_output(gert::Range<gert::Shape>());
    REQUIRE(InferShapeRange(&ctx) == ge::GRAPH_SUCCESS);
    CHECK(ctx.GetOutputShapeRange(0)->GetMax()->GetDim(0) == 64);
    CHECK(ctx.GetOutputShapeRange(0)->GetMin()->GetDim(0) == 1);
  }
}
