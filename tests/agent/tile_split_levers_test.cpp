// Template synthesis on the levers real tiling programs compute rather than name (issue 35 item
// 1): the elements per loop divided out of the UB size, the block they are rounded down to, and
// the per-core share the cores used follow. The programs are ours, written in the style of public
// AscendC host files; tests/data/ops/affine_split_custom is one with a kernel, evaluated on the
// simulator at the baseline and at the far corner of the new levers' ranges.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/heuristics/heuristic_mutator.hpp"
#include "agent/heuristics/template_synthesis.hpp"
#include "agent/kernel_text/source_text.hpp"
#include "agent/kernel_text/tiling_dataflow.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;
using namespace aopt::agent;
namespace fs = std::filesystem;

namespace {

const fs::path kAffineDir = fs::path(AOPT_TEST_DATA_DIR) / "ops/affine_split_custom";

std::string affine_host_path() {
  return (kAffineDir / "op_host/affine_split_custom.cpp").string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

synthesis_options affine_options() {
  synthesis_options o;
  o.cores = 40;
  o.file_name = affine_host_path();  // its own header resolves
  return o;
}

const tunable* find_tunable(const std::vector<tunable>& ts, const std::string& name) {
  for (const tunable& t : ts) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// The bigCore/smallCore split: the first `totalLength % coreNum` cores take one element more.
// The block dim is the core count, and the kernel computes offsets from the three fields, so
// the share is no lever. The UB is handed over as a budget (a difference, not a quotient), and a
// quotient of it that only guards the function is not given to the kernel: neither is a lever.
const char* kFormerTailTiling = R"(#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(HardSigmoidTilingData)
TILING_DATA_FIELD_DEF(uint32_t, formerNum);
TILING_DATA_FIELD_DEF(uint32_t, formerLength);
TILING_DATA_FIELD_DEF(uint32_t, tailLength);
TILING_DATA_FIELD_DEF(uint32_t, ubLimit);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(HardSigmoid, HardSigmoidTilingData)

const uint32_t RESERVED_BYTES = 1024;

static ge::graphStatus TilingForHardSigmoid(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    uint64_t ubSize;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t totalLength = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t formerNum = totalLength % coreNum;
    uint32_t tailLength = totalLength / coreNum;
    uint32_t formerLength = tailLength + 1;
    uint32_t ubLimit = ubSize - RESERVED_BYTES;
    uint32_t rowsFit = ubSize / (formerLength * sizeof(float));
    if (rowsFit == 0) {
        return ge::GRAPH_FAILED;
    }
    HardSigmoidTilingData tiling;
    tiling.set_formerNum(formerNum);
    tiling.set_formerLength(formerLength);
    tiling.set_tailLength(tailLength);
    tiling.set_ubLimit(ubLimit);
    context->SetBlockDim(coreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
)";

// Tasks per loop through a rounding helper on two lines, a count derived from them, and a
// quotient that a branch rewrites (no single place to set it).
const char* kFloorAlignTiling = R"(#include "register/op_def_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(GatherTasksTilingData)
TILING_DATA_FIELD_DEF(uint32_t, maxUbTasks);
TILING_DATA_FIELD_DEF(uint32_t, loops);
TILING_DATA_FIELD_DEF(uint32_t, spare);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(GatherTasks, GatherTasksTilingData)

constexpr uint32_t TASK_ALIGN = 8;
constexpr uint64_t MAX_TASKS = 4095;

template <typename T>
T FloorAlign(T value, T block) { return value / block * block; }
template <typename T>
T DivFloor(T a, T b) { return a / b; }
template <typename T>
T Smaller(T a, T b) { return a < b ? a : b; }

static ge::graphStatus TilingForGatherTasks(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint64_t taskBytes = context->GetInputShape(0)->GetStorageShape().GetDim(1) * sizeof(float);
    uint32_t tasks = context->GetInputShape(0)->GetStorageShape().GetDim(0);
    uint32_t maxUbTasks = FloorAlign(Smaller(MAX_TASKS, DivFloor(ubSize, taskBytes)),
        static_cast<uint64_t>(TASK_ALIGN));
    uint32_t loops = tasks / maxUbTasks;
    uint32_t spare = ubSize / taskBytes;
    if (tasks < 64) {
        spare = spare / 2;
    }
    GatherTasksTilingData tiling;
    tiling.set_maxUbTasks(maxUbTasks);
    tiling.set_loops(loops);
    tiling.set_spare(spare);
    context->SetBlockDim(1);
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
)";

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("libclang finds the elements per loop, their block and the core split") {
    const std::string host = read_text(affine_host_path());
    result<std::vector<computed_lever>> found = find_computed_levers(
        host, synthesis_options::default_tiling_include_dirs(), affine_host_path());
    REQUIRE(found.ok());
    const computed_lever* tile = nullptr;
    const computed_lever* split = nullptr;
    for (const computed_lever& l : *found) {
      if (l.kind == computed_lever_kind::tile_elements) tile = &l;
      if (l.kind == computed_lever_kind::core_split) split = &l;
      CHECK(l.kind != computed_lever_kind::not_lever);
    }
    REQUIRE(tile != nullptr);
    CHECK(tile->variable == "tileLength");
    CHECK(tile->alignment == "elemsPerBlock");
    CHECK(tile->expression ==
          "uint32_t tileLength = maxTileLength / elemsPerBlock * elemsPerBlock;");
    REQUIRE(split != nullptr);
    CHECK(split->variable == "perCoreLength");
    // The last of its two writes, after which the function first reads it.
    CHECK(split->expression ==
          "perCoreLength = (perCoreLength + elemsPerBlock - 1) / elemsPerBlock * elemsPerBlock;");

    // Through a rounding helper over two lines: the block is its second argument; the count
    // derived from it and the quotient a branch rewrites are not levers of their own.
    result<std::vector<computed_lever>> helper =
        find_computed_levers(kFloorAlignTiling, synthesis_options::default_tiling_include_dirs());
    REQUIRE(helper.ok());
    std::vector<std::string> tiles;
    for (const computed_lever& l : *helper) {
      if (l.kind == computed_lever_kind::tile_elements) {
        tiles.push_back(l.variable);
        CHECK(l.alignment == "static_cast<uint64_t>(TASK_ALIGN)");
      }
    }
    CHECK(tiles == std::vector<std::string>{"maxUbTasks"});

    // Synthesis quotes the two-line statement on one line (a note ends at its line) and sets the
    // variable after the statement's last line.
    result<synthesized_template> t = synthesize_template(kFloorAlignTiling);
    REQUIRE(t.ok());
    const tunable* cap = find_tunable(t->tunables, "TILE_CAP");
    REQUIRE(cap != nullptr);
    CHECK(cap->note.find("`uint32_t maxUbTasks = FloorAlign(Smaller(MAX_TASKS, DivFloor(ubSize, "
                         "taskBytes)), static_cast<uint64_t>(TASK_ALIGN));`") != std::string::npos);
    CHECK(t->source.find("        static_cast<uint64_t>(TASK_ALIGN));\n"
                         "    if (TILE_CAP != 0 && maxUbTasks > ") != std::string::npos);
    for (const std::string& line : split_lines(t->source)) {
      if (line.find("// tunable:") != std::string::npos) {
        CHECK_MESSAGE(line.find("constexpr uint32_t ") != std::string::npos, line);
      }
    }
    CHECK(t->source.find("\n`") == std::string::npos);
    CHECK(t->source.find("\n        static_cast<uint64_t>(TASK_ALIGN));`") == std::string::npos);
  }

  TEST_CASE("synthesis makes the computed tile, its block and the core split tunable") {
    const std::string host = read_text(affine_host_path());
    result<synthesized_template> t = synthesize_template(host, affine_options());
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    const tunable* cap = find_tunable(t->tunables, "TILE_CAP");
    const tunable* mult = find_tunable(t->tunables, "TILE_ALIGN_MULT");
    const tunable* grain = find_tunable(t->tunables, "SPLIT_GRAIN");
    REQUIRE(cap != nullptr);
    REQUIRE(mult != nullptr);
    REQUIRE(grain != nullptr);
    // Each starts where the function is: the baseline is unchanged.
    CHECK(cap->value == 0);
    CHECK(cap->choices == std::vector<int64_t>{0, 64, 128, 256, 512, 1024, 2048, 4096, 8192});
    CHECK(tunable_role(*cap) == tiling_role::tile_size);
    CHECK(cap->note.find("`uint32_t tileLength = maxTileLength / elemsPerBlock * "
                         "elemsPerBlock;`") != std::string::npos);
    CHECK(mult->value == 1);
    CHECK(mult->choices == std::vector<int64_t>{1, 2, 4, 8});
    CHECK(tunable_role(*mult) == tiling_role::none);
    CHECK(mult->note.find("x `elemsPerBlock`") != std::string::npos);
    CHECK(grain->value == 1);
    CHECK(grain->choices == std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128});
    CHECK(grain->note.find("`perCoreLength = (perCoreLength + elemsPerBlock - 1) / "
                           "elemsPerBlock * elemsPerBlock;`") != std::string::npos);
    // The levers record the expressions too.
    bool recorded = false;
    for (const synthesized_lever& l : t->levers) {
      if (l.name == "SPLIT_GRAIN") {
        recorded = l.expression.rfind("perCoreLength = (perCoreLength", 0) == 0;
      }
    }
    CHECK(recorded);
    CHECK(t->source.find(
              "    uint32_t tileLength = maxTileLength / elemsPerBlock * elemsPerBlock;\n"
              "    if (TILE_CAP != 0 && tileLength > static_cast<decltype(tileLength)>(TILE_CAP) "
              "&& static_cast<decltype(tileLength)>(TILE_CAP) >= "
              "static_cast<decltype(tileLength)>(elemsPerBlock)) tileLength = "
              "static_cast<decltype(tileLength)>(TILE_CAP);\n") != std::string::npos);
    CHECK(t->source.find("    perCoreLength = (perCoreLength + "
                         "static_cast<decltype(perCoreLength)>(SPLIT_GRAIN) - 1) / ") !=
          std::string::npos);

    // The mutator proposes only values of these domains: multiples of the block (powers of two
    // from 64 elements) that only lower the tile the function bounds by the UB.
    heuristic_mutator m(t->tunables, {8, 2, 5, 4, 0.3, 64, 6, 16384, 40, 192 * 1024, 8});
    m.report(current_values(t->tunables), 10.0);
    for (int i = 0; i < 12; ++i) {
      std::optional<tunable_values> v = m.propose();
      REQUIRE(v.has_value());
      const int64_t c = v->at("TILE_CAP");
      CHECK((c == 0 || (c % 64 == 0 && c <= 8192)));
      CHECK(mult->admits(v->at("TILE_ALIGN_MULT")));
      CHECK(grain->admits(v->at("SPLIT_GRAIN")));
      m.report(*v, 10.0 + i);
    }
  }

  TEST_CASE("a split the cores used do not follow, a UB budget and a guard quotient stay") {
    result<synthesized_template> t = synthesize_template(kFormerTailTiling);
    REQUIRE(t.ok());
    CHECK(find_tunable(t->tunables, "SPLIT_GRAIN") == nullptr);
    CHECK(find_tunable(t->tunables, "TILE_CAP") == nullptr);
    CHECK(find_tunable(t->tunables, "CORE_COUNT") != nullptr);  // still capped
    std::string seen;
    for (const std::string& l : t->looked_at) seen += l + "\n";
    CHECK(seen.find("tailLength = `totalLength / coreNum` (a per-core share the cores used do "
                    "not follow (SetBlockDim gets `coreNum`)") != std::string::npos);
    // The share derived from it by addition is no quotient of the core count.
    CHECK(seen.find("formerLength =") == std::string::npos);
    CHECK(t->source.find("formerLength = tailLength + 1;") != std::string::npos);
    CHECK(t->source.find("ubLimit = ubSize - RESERVED_BYTES;\n") != std::string::npos);
  }

  TEST_CASE("on real operators synthesis finds the computed tiles and leaves their splits") {
    // Two packages of the wild set (../shared/wild, sources verbatim); skipped without it.
    const fs::path wild = fs::path(AOPT_SOURCE_DIR).parent_path() / "shared" / "wild";
    if (!fs::is_directory(wild / "ds_roiaware_avgpool3d_grad") ||
        !fs::is_directory(wild / "ds_grid_sampler2d_v2")) {
      MESSAGE("../shared/wild is absent: skipped");
      return;
    }
    const auto synthesize = [&](const std::string& name) {
      result<npu::op_package> op = npu::load_op_package(wild / name);
      REQUIRE_MESSAGE(op.ok(), op.error().to_string());
      synthesis_options o;
      o.file_name = (op->dir / op->spec.files.host).string();
      result<synthesized_template> t = synthesize_template(op->host_source, o, op->kernel_source);
      REQUIRE_MESSAGE(t.ok(), t.error().to_string());
      return *t;
    };
    // Two quotients of the UB handed to the kernel (tasks in, points out); the per-core share
    // feeds offsets while SetBlockDim takes the core count: no split lever.
    const synthesized_template roi = synthesize("ds_roiaware_avgpool3d_grad");
    const tunable* in = find_tunable(roi.tunables, "TILE_CAP");
    const tunable* out = find_tunable(roi.tunables, "TILE_CAP2");
    REQUIRE(in != nullptr);
    REQUIRE(out != nullptr);
    CHECK(in->note.find("caps `singleLoopTask` of `uint32_t singleLoopTask = (ubSize * "
                        "INPUT_UB_RATIO) / BUFFER_NUM /") != std::string::npos);
    CHECK(out->note.find("caps `outputLoopTask`") != std::string::npos);
    CHECK(find_tunable(roi.tunables, "SPLIT_GRAIN") == nullptr);
    bool named = false;
    for (const std::string& l : roi.looked_at) {
      if (l.rfind("singleCoreTask = `(totalTask + aivNum - 1) / aivNum` (a per-core share", 0) == 0)
        named = true;
    }
    CHECK(named);
    // Tasks per loop rounded down to whole blocks: the block is a tunable multiple.
    const synthesized_template grid = synthesize("ds_grid_sampler2d_v2");
    const tunable* mult = find_tunable(grid.tunables, "TILE_ALIGN_MULT");
    REQUIRE(mult != nullptr);
    CHECK(mult->note.find("rounds `alignedTaskNumPerLoop` down to a multiple of TILE_ALIGN_MULT x "
                          "`B32_DATA_NUM_PER_BLOCK`") != std::string::npos);
    REQUIRE(find_tunable(grid.tunables, "TILE_CAP") != nullptr);
  }

  TEST_CASE("the computed levers keep the operator's results over their ranges (simulator)") {
    result<npu::op_package> op = npu::load_op_package(kAffineDir);
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    result<synthesized_template> t = synthesize_template(op->host_source, affine_options());
    REQUIRE(t.ok());
    result<sim::hw_profile> hw =
        npu::find_hardware_profile("ascend910b4", fs::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE(hw.ok());
    aopt::testing::temp_dir work;
    npu::sim_device_options options;
    options.work_dir = work.path();
    options.cache_dir = aopt::testing::shared_object_cache();
    npu::sim_device device(*hw, options);

    const npu::eval_result base = device.evaluate(*op, op->host_source, op->kernel_source, {});
    REQUIRE_MESSAGE(base.ok(), base.message);
    // The template at its start values is the operator.
    const npu::eval_result same = device.evaluate(*op, t->source, op->kernel_source, {});
    REQUIRE_MESSAGE(same.ok(), same.message);
    CHECK(same.latency_us == doctest::Approx(base.latency_us));
    // The far corner: the smallest tile rounded to 8 blocks, shares of 128 elements on at most
    // 7 cores: still correct, and it moves the schedule.
    result<std::string> corner = apply_values(
        t->source,
        {{"TILE_CAP", 64}, {"TILE_ALIGN_MULT", 8}, {"SPLIT_GRAIN", 128}, {"CORE_COUNT", 7}});
    REQUIRE(corner.ok());
    const npu::eval_result moved = device.evaluate(*op, *corner, op->kernel_source, {});
    REQUIRE_MESSAGE(moved.ok(), moved.message);
    CHECK(moved.latency_us != doctest::Approx(base.latency_us));
  }
}
