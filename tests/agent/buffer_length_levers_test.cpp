// Template synthesis on a tile length the tiling program computes from constants (issue 35 item
// 1, "however they are named"): a block of bytes divided by the element size, halved for one
// dtype in a branch, handed to a tiling field the kernel sizes its buffers by. Found by the
// kernel's use of the field (InitBuffer's length), not by its name. The programs are ours, in the
// style of public host files; a wild operator (sources verbatim) is evaluated on the simulator.
#include <doctest/doctest.h>

#include <filesystem>

#include "agent/heuristics/template_synthesis.hpp"
#include "agent/kernel_text/source_text.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using aopt::result;
using aopt::agent::synthesize_template;
using aopt::agent::synthesized_template;
using aopt::agent::tunable;

namespace {

const char* kChunkTiling = R"(#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(ChunkTilingData)
TILING_DATA_FIELD_DEF(uint32_t, chunkElems);
TILING_DATA_FIELD_DEF(uint32_t, chunkCount);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(ChunkScale, ChunkTilingData)

constexpr uint32_t CHUNK_BYTES = 16 * 1024;
constexpr uint32_t ELEM_BYTES = 4;

static ge::graphStatus ChunkTiling(gert::TilingContext* context)
{
    ChunkTilingData tiling;
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t cores = platform.GetCoreNumAiv();
    uint32_t chunkElems = CHUNK_BYTES / ELEM_BYTES;
    if (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16) {
        chunkElems = CHUNK_BYTES / 2;
    }
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t chunkCount = (total + chunkElems - 1) / chunkElems;
    context->SetBlockDim(cores);
    tiling.set_chunkElems(chunkElems);
    tiling.set_chunkCount(chunkCount);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(),
                        context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
)";

// Its kernel sizes the queue's buffers by chunkElems and loops chunkCount times.
const char* kChunkKernel = R"(#include "kernel_operator.h"
using namespace AscendC;
class ChunkScale {
public:
    __aicore__ inline void Init(GM_ADDR x, const ChunkTilingData* t)
    {
        elems = t->chunkElems;
        count = t->chunkCount;
        pipe.InitBuffer(queue, 2, elems * sizeof(float));
    }
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> queue;
    uint32_t elems = 0;
    uint32_t count = 0;
};
)";

const tunable* find_tunable(const std::vector<tunable>& ts, const std::string& name) {
  for (const tunable& t : ts) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("a tile length computed from constants and sized into the kernel's buffers is capped") {
    result<synthesized_template> t = synthesize_template(kChunkTiling, {}, kChunkKernel);
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    const tunable* cap = find_tunable(t->tunables, "TILE_CAP");
    REQUIRE(cap != nullptr);
    CHECK(cap->value == 0);  // the baseline is unchanged
    CHECK(cap->note.find("caps `chunkElems`") != std::string::npos);
    CHECK(cap->note.find("the length the kernel sizes its buffers by") != std::string::npos);
    // The branch that halves it for float16 is the statement quoted, and the cap follows it, so
    // the count computed next divides by the capped length.
    CHECK(cap->note.find("if (context->GetInputDesc(0)->GetDataType() == ge::DT_FLOAT16)") !=
          std::string::npos);
    const size_t branch_end = t->source.find("        chunkElems = CHUNK_BYTES / 2;\n    }\n");
    const size_t capped = t->source.find("if (TILE_CAP != 0 && chunkElems > ");
    const size_t counted = t->source.find("uint32_t chunkCount = ");
    REQUIRE(branch_end != std::string::npos);
    REQUIRE(capped != std::string::npos);
    CHECK(branch_end < capped);
    CHECK(capped < counted);
    // The count is computed from the shape: no lever of its own.
    CHECK(t->source.find("uint32_t chunkCount = (total + chunkElems - 1) / chunkElems;") !=
          std::string::npos);
  }

  TEST_CASE(
      "without the kernel's use, from the shape, or too short to lower, a length is no lever") {
    // Nothing tells the field sizes a buffer: no kernel.
    result<synthesized_template> blind = synthesize_template(kChunkTiling);
    REQUIRE(blind.ok());
    CHECK(find_tunable(blind->tunables, "TILE_CAP") == nullptr);
    // A length the kernel sizes its buffers by, but derived from the shape (tied to the count).
    std::string from_shape = kChunkTiling;
    const std::string decl = "uint32_t chunkElems = CHUNK_BYTES / ELEM_BYTES;";
    from_shape.replace(from_shape.find(decl), decl.size(),
                       "uint32_t total0 = context->GetInputShape(0)->GetStorageShape()."
                       "GetShapeSize();\n    uint32_t chunkElems = total0 / 64;");
    result<synthesized_template> shaped = synthesize_template(from_shape, {}, kChunkKernel);
    REQUIRE(shaped.ok());
    CHECK(find_tunable(shaped->tunables, "TILE_CAP") == nullptr);
    // A length no cap can lower: 64 bytes of floats, 16 (32 in float16) elements.
    std::string small = kChunkTiling;
    const std::string bytes = "CHUNK_BYTES = 16 * 1024;";
    small.replace(small.find(bytes), bytes.size(), "CHUNK_BYTES = 64;");
    result<synthesized_template> tiny = synthesize_template(small, {}, kChunkKernel);
    REQUIRE(tiny.ok());
    CHECK(find_tunable(tiny->tunables, "TILE_CAP") == nullptr);
  }

  TEST_CASE("on a wild operator the capped block is correct and moves the latency (simulator)") {
    const fs::path dir =
        fs::path(AOPT_SOURCE_DIR).parent_path() / "shared" / "wild" / "ds_fused_bias_leaky_relu_v2";
    if (!fs::is_directory(dir)) {
      MESSAGE("../shared/wild is absent: skipped");
      return;
    }
    result<aopt::npu::op_package> op = aopt::npu::load_op_package(dir);
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    aopt::agent::synthesis_options o;
    o.file_name = (op->dir / op->spec.files.host).string();
    o.kernel_file_name = (op->dir / op->spec.files.kernel).string();  // its class is in a header
    result<synthesized_template> t = synthesize_template(op->host_source, o, op->kernel_source);
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    const tunable* cap = find_tunable(t->tunables, "TILE_CAP");
    REQUIRE(cap != nullptr);
    CHECK(cap->note.find("caps `singleBlock`") != std::string::npos);

    result<aopt::sim::hw_profile> hw = aopt::npu::find_hardware_profile(
        "ascend910b4", fs::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE(hw.ok());
    aopt::testing::temp_dir work;
    aopt::npu::sim_device_options options;
    options.work_dir = work.path();
    options.cache_dir = aopt::testing::shared_object_cache();
    aopt::npu::sim_device device(*hw, options);
    const aopt::npu::eval_result base =
        device.evaluate(*op, op->host_source, op->kernel_source, {});
    REQUIRE_MESSAGE(base.ok(), base.message);
    const aopt::npu::eval_result same = device.evaluate(*op, t->source, op->kernel_source, {});
    REQUIRE_MESSAGE(same.ok(), same.message);
    CHECK(same.latency_us == doctest::Approx(base.latency_us));
    // Half the block: twice the tasks, spread more evenly over the cores.
    result<std::string> halved = aopt::agent::apply_values(t->source, {{"TILE_CAP", 4096}});
    REQUIRE(halved.ok());
    const aopt::npu::eval_result moved = device.evaluate(*op, *halved, op->kernel_source, {});
    REQUIRE_MESSAGE(moved.ok(), moved.message);
    MESSAGE("fused_bias_leaky_relu_v2: block 8192 " << base.latency_us << " us, 4096 "
                                                    << moved.latency_us << " us");
    CHECK(moved.latency_us < base.latency_us);
  }
}
