#include "agent/heuristics/template_synthesis.hpp"

#include <doctest/doctest.h>

using namespace aopt;
using namespace aopt::agent;

namespace {

const char* kPlainTiling = R"(#include "x_tiling.h"
#define TILE_LENGTH 2048
#define ALIGN_NUM 16
namespace optiling {
static const uint32_t BUFFER_NUM = 1;  // queues per tensor
constexpr uint32_t UB_SIZE = 196608;
constexpr uint32_t QUEUE_BYTES_PER_ELEM = 6;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    const uint32_t tileNum = 8;
    uint32_t total = 1024;
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
}
)";

// Marker-less programs in the style of the public AscendC samples (written for these tests).
// Sample 1: the core count capped by a constant, a tile length taken from a min, the buffer
// depth handed to the kernel through the tiling data, a queue count dividing the UB.
const char* kCappedTiling = R"(#include "add_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"

namespace optiling {
const uint32_t CORE_LIMIT = 48;
const uint32_t UNIT_LEN = 4096;
const uint32_t DOUBLE_BUFFER = 2;
const uint32_t QUEUE_NUM = 3;  // x, y and z
const uint32_t BLOCK_BYTES = 32;

static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    TilingData tiling;
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = ascendcPlatform.GetCoreNumAiv();
    if (coreNum > CORE_LIMIT) {
        coreNum = CORE_LIMIT;
    }
    uint64_t ubSize;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    uint32_t maxTile = ubSize / (DOUBLE_BUFFER * QUEUE_NUM * sizeof(uint16_t)) / BLOCK_BYTES * BLOCK_BYTES;
    uint32_t tileLength = std::min<uint32_t>(UNIT_LEN, maxTile);
    tiling.set_totalLength(totalLength);
    tiling.set_tileLength(tileLength);
    tiling.set_bufferNum(DOUBLE_BUFFER);
    context->SetBlockDim(coreNum);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    return ge::GRAPH_SUCCESS;
}
}  // namespace optiling
)";

const char* kCappedKernel = R"(#include "kernel_operator.h"
using namespace AscendC;
class KernelAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t totalLength, uint32_t tileLength, uint32_t bufferNum)
    {
        this->tileLength = tileLength;
        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(half));
        pipe.InitBuffer(outQueueZ, bufferNum, tileLength * sizeof(half));
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueueX;
    TQue<QuePosition::VECOUT, 2> outQueueZ;
    uint32_t tileLength;
};
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAdd op;
    op.Init(x, tilingData.totalLength, tilingData.tileLength, tilingData.bufferNum);
}
)";

// Sample 2: BUFFER_NUM on the host counts the queues sharing the UB; the kernel's buffer depth
// is its own constant. The block dim is the min of a constant and the core count.
const char* kQueueCountTiling = R"(namespace optiling {
constexpr uint32_t BUFFER_NUM = 3;  // x, y and z queues share the UB
constexpr uint32_t TILE_LENGTH = 2048;

static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t perQueue = ubSize / BUFFER_NUM;
    uint32_t tileLength = std::min<uint32_t>(TILE_LENGTH, perQueue / 4);
    context->SetBlockDim(std::min(16u, platform.GetCoreNumAiv()));
    SumTilingData tiling;
    tiling.set_tileLength(tileLength);
    return ge::GRAPH_SUCCESS;
}
}
)";

const char* kQueueCountKernel = R"(constexpr int32_t BUFFER_NUM = 2;
class KernelSum {
    __aicore__ inline void Init(uint32_t tileLength)
    {
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(float));
    }
};
)";

const tunable* find(const synthesized_template& t, const std::string& name) {
  for (const tunable& u : t.tunables) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("synthesis finds the core cap, the tile size and the buffer depth by usage") {
    result<synthesized_template> t = synthesize_template(kCappedTiling, {40}, kCappedKernel);
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    const tunable* cap = find(*t, "CORE_LIMIT");
    REQUIRE(cap != nullptr);
    CHECK(cap->domain_text() == "range [1, 48]");
    CHECK(cap->note.find("core cap: used with the core count in `if (coreNum > CORE_LIMIT)`") !=
          std::string::npos);
    const tunable* tile = find(*t, "UNIT_LEN");
    REQUIRE(tile != nullptr);
    CHECK(tile->kind == tunable_kind::pow2);
    CHECK(tile->note.find("tile size: reaches tiling field tileLength") != std::string::npos);
    const tunable* depth = find(*t, "DOUBLE_BUFFER");
    REQUIRE(depth != nullptr);
    CHECK(depth->choices == std::vector<int64_t>{1, 2});
    CHECK(depth->note.find("buffer depth: reaches tiling field bufferNum") != std::string::npos);
    // Divisors are not levers: the queue count and the block size stay as they are.
    CHECK(find(*t, "QUEUE_NUM") == nullptr);
    CHECK(find(*t, "BLOCK_BYTES") == nullptr);
    CHECK(t->source.find("const uint32_t QUEUE_NUM = 3;  // x, y and z\n") != std::string::npos);
    // The UB size the tiling divides is a fourth lever (read with libclang); the platform's
    // core count is not, CORE_LIMIT already caps it.
    REQUIRE(t->levers.size() == 4);
    CHECK(t->levers[3].name == "UB_SHARE_64THS");
    CHECK(find(*t, "CORE_COUNT") == nullptr);
    std::string looked;
    for (const std::string& l : t->looked_at) looked += l + "\n";
    CHECK(looked.find("QUEUE_NUM (") != std::string::npos);
    CHECK(looked.find("`ascendcPlatform.GetCoreNumAiv()` (already bounded by a constant lever)") !=
          std::string::npos);
  }

  TEST_CASE("a constant multiplied with the core count caps nothing") {
    // Written in the style of public hosts that size a per-core workspace: the byte and slot
    // counts share a statement with the core count but neither compares with it nor bounds it.
    const char* tiling = R"(namespace optiling {
const uint32_t SLOT_BYTES = 4;
constexpr size_t PING_SLOTS = 2;
const uint32_t MAX_USED_CORES = 24;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto platform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t coreNum = platform.GetCoreNumAiv();
    size_t workspace = coreNum * PING_SLOTS * SLOT_BYTES + 1024;
    uint32_t usedCores = std::min(coreNum, MAX_USED_CORES);
    context->SetBlockDim(usedCores);
    size_t* ws = context->GetWorkspaceSizes(1);
    ws[0] = workspace;
    return ge::GRAPH_SUCCESS;
}
}
)";
    synthesis_options o;
    o.read_dataflow = false;
    result<synthesized_template> t = synthesize_template(tiling, o, "");
    REQUIRE(t.ok());
    CHECK(find(*t, "SLOT_BYTES") == nullptr);
    CHECK(find(*t, "PING_SLOTS") == nullptr);
    const tunable* cap = find(*t, "MAX_USED_CORES");
    REQUIRE(cap != nullptr);
    CHECK(cap->note.find("core cap: used with the core count") == 0);
  }

  TEST_CASE("synthesis does not take a count of queues for a buffer depth") {
    result<synthesized_template> t =
        synthesize_template(kQueueCountTiling, {40}, kQueueCountKernel);
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    CHECK(find(*t, "BUFFER_NUM") == nullptr);
    REQUIRE(find(*t, "TILE_LENGTH") != nullptr);
    bool queue_reason = false;
    for (const std::string& l : t->looked_at) {
      if (l.find("BUFFER_NUM (named like a buffer count but reaches no InitBuffer num") == 0) {
        queue_reason = true;
      }
    }
    CHECK(queue_reason);
    // Without the kernel the name is all there is: then it counts as a buffer number.
    result<synthesized_template> blind = synthesize_template(kQueueCountTiling, {40});
    REQUIRE(blind.ok());
    CHECK(find(*blind, "BUFFER_NUM") != nullptr);
  }

  TEST_CASE("synthesis that finds nothing says what it looked at") {
    result<synthesized_template> t = synthesize_template(
        "constexpr uint32_t ALIGN_NUM = 16;\nconst int unused = 3;\n", {40}, "");
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().code() == status_code::failed_precondition);
    CHECK(t.error().message().find("ALIGN_NUM (the name says it is a fixed quantity)") !=
          std::string::npos);
    CHECK(t.error().message().find("unused (not used by the tiling program)") != std::string::npos);
  }

  TEST_CASE("an input or attribute index is no lever, however it is named") {
    // The public style: named positions into the signature, and a quantity derived from the
    // shape one of them selects reaching a tiling field.
    const std::string tiling = R"(
const uint32_t POS_INPUT_BOXES_B = 1;
const uint32_t ATTR_MODE = 2;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto boxesBShape = context->GetInputShape(POS_INPUT_BOXES_B);
    auto attrs = context->GetAttrs();
    const int32_t* mode = attrs->GetAttrPointer<int32_t>(ATTR_MODE);
    uint32_t outerLoopCnt = boxesBShape->GetStorageShape().GetDim(0) * POS_INPUT_BOXES_B;
    tiling.set_outerLoopCnt(outerLoopCnt + *mode);
    return ge::GRAPH_SUCCESS;
}
)";
    result<synthesized_template> t = synthesize_template(tiling, {40}, "");
    REQUIRE_FALSE(t.ok());
    const std::string why = t.error().message();
    CHECK(why.find("POS_INPUT_BOXES_B (an index into the operator's signature: "
                   "GetInputShape(POS_INPUT_BOXES_B))") != std::string::npos);
    CHECK(why.find("ATTR_MODE (an index into the operator's signature: "
                   "GetAttrPointer(ATTR_MODE))") != std::string::npos);
    // The same constant used as a quantity only is still taken.
    std::string quantity = tiling;
    quantity.replace(quantity.find("GetInputShape(POS_INPUT_BOXES_B)"),
                     std::string("GetInputShape(POS_INPUT_BOXES_B)").size(), "GetInputShape(0)");
    result<synthesized_template> q = synthesize_template(quantity, {40}, "");
    REQUIRE(q.ok());
    CHECK(find(*q, "POS_INPUT_BOXES_B") != nullptr);
  }

  TEST_CASE("template synthesis marks tiling constants and leaves the rest alone") {
    result<synthesized_template> t = synthesize_template(kPlainTiling, {40});
    REQUIRE(t.ok());
    CHECK(t->synthesized);
    std::vector<std::string> names;
    for (const tunable& u : t->tunables) names.push_back(u.name);
    CHECK(names ==
          std::vector<std::string>{"TILE_LENGTH", "BUFFER_NUM", "UB_SIZE", "tileNum", "BLOCK_DIM"});
    const std::string& s = t->source;
    CHECK(s.find("constexpr int TILE_LENGTH = 2048;  // tunable: pow2 [128, 32768]") !=
          std::string::npos);
    CHECK(s.find("#define ALIGN_NUM 16") != std::string::npos);
    CHECK(s.find("static constexpr uint32_t BUFFER_NUM = 1;  // tunable: choice {1, 2}  the name "
                 "says buffer_num; queues per tensor") != std::string::npos);
    CHECK(s.find("UB_SIZE = 196608;  // tunable: range [49152, 196608] step 32") !=
          std::string::npos);
    CHECK(s.find("constexpr uint32_t QUEUE_BYTES_PER_ELEM = 6;\n") != std::string::npos);
    CHECK(s.find("constexpr uint32_t tileNum = 8;  // tunable: range [1, 32]") !=
          std::string::npos);
    CHECK(s.find("uint32_t total = 1024;") != std::string::npos);
    CHECK(s.find("constexpr uint32_t BLOCK_DIM = 8;  // tunable: range [1, 40]") !=
          std::string::npos);
    CHECK(s.find("context->SetBlockDim(BLOCK_DIM);") != std::string::npos);
  }

  TEST_CASE("template synthesis is deterministic and idempotent") {
    result<synthesized_template> a = synthesize_template(kPlainTiling);
    result<synthesized_template> b = synthesize_template(kPlainTiling);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    CHECK(a->source == b->source);
    result<synthesized_template> again = synthesize_template(a->source);
    REQUIRE(again.ok());
    CHECK_FALSE(again->synthesized);
    CHECK(again->source == a->source);
    CHECK(again->tunables.size() == a->tunables.size());
  }

  TEST_CASE("template synthesis wraps runs of declarations in one block each") {
    result<synthesized_template> t = synthesize_template(kPlainTiling);
    REQUIRE(t.ok());
    size_t starts = 0;
    for (size_t p = t->source.find("EVOLVE-BLOCK-START"); p != std::string::npos;
         p = t->source.find("EVOLVE-BLOCK-START", p + 1)) {
      ++starts;
    }
    // TILE_LENGTH; BUFFER_NUM + UB_SIZE; tileNum; BLOCK_DIM.
    CHECK(starts == 4);
  }

  TEST_CASE("template synthesis gives non-power-of-two tiles a stepped range") {
    result<synthesized_template> t = synthesize_template("constexpr int64_t TILE_SIZE = 1536;\n");
    REQUIRE(t.ok());
    REQUIRE(t->tunables.size() == 1);
    CHECK(t->tunables[0].domain_text() == "range [256, 6144] step 256");
  }

  TEST_CASE("template synthesis without tiling constants is a failed precondition") {
    result<synthesized_template> t = synthesize_template("int main() { return 0; }\n");
    REQUIRE_FALSE(t.ok());
    CHECK(t.error().code() == status_code::failed_precondition);
  }

  TEST_CASE("a name used in a preprocessor condition stays a macro") {
    result<synthesized_template> t = synthesize_template(
        "#define TILE_LENGTH 1024\n#if TILE_LENGTH > 512\n#endif\nconst int BLOCK_DIM = 4;\n");
    REQUIRE(t.ok());
    REQUIRE(t->tunables.size() == 1);
    CHECK(t->tunables[0].name == "BLOCK_DIM");
  }

}  // TEST_SUITE

namespace {

// Matmul hosts without markers, written for these tests in the style of the public Matmul
// samples: the base tile and the core split go to the Matmul tiling API as literals, or as named
// constants.
const char* kMatmulLiteralTiling = R"(#include "matmul_custom_tiling.h"
#include "register/op_def_registry.h"
#include "tiling/platform/platform_ascendc.h"
#include "tiling/tiling_api.h"
namespace optiling {
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    int32_t m = context->GetInputShape(0)->GetStorageShape().GetDim(0);
    int32_t k = context->GetInputShape(0)->GetStorageShape().GetDim(1);
    int32_t n = context->GetInputShape(1)->GetStorageShape().GetDim(1);
    matmul_tiling::MultiCoreMatmulTiling cubeTiling(ascendcPlatform);
    cubeTiling.SetDim(8);
    cubeTiling.SetShape(m, n, k);
    cubeTiling.SetOrgShape(m, n, k);
    cubeTiling.SetFixSplit(128, 64, -1);
    cubeTiling.SetBufferSpace(-1, -1, -1);
    MatmulCustomTilingData tiling;
    if (cubeTiling.GetTiling(tiling.cubeTilingData) == -1) return ge::GRAPH_FAILED;
    context->SetBlockDim(tiling.cubeTilingData.get_usedCoreNum());
    return ge::GRAPH_SUCCESS;
}
}
)";

const char* kMatmulNamedTiling = R"(#include "matmul_custom_tiling.h"
namespace optiling {
constexpr int32_t CUBE_CORES = 4;
constexpr int32_t TILE_M = 64;
constexpr int32_t TILE_N = 64;
constexpr int32_t TILE_K = 32;
static ge::graphStatus TilingFunc(gert::TilingContext* context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    matmul_tiling::MultiCoreMatmulTiling cubeTiling(ascendcPlatform);
    cubeTiling.SetDim(CUBE_CORES);
    cubeTiling.SetFixSplit(TILE_M, TILE_N, TILE_K);
    MatmulCustomTilingData tiling;
    if (cubeTiling.GetTiling(tiling.cubeTilingData) == -1) return ge::GRAPH_FAILED;
    context->SetBlockDim(tiling.cubeTilingData.get_usedCoreNum());
    return ge::GRAPH_SUCCESS;
}
}
)";

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("synthesis makes a matmul's literal base tile and core split tunable") {
    synthesis_options options{20};
    options.read_dataflow = false;
    result<synthesized_template> t = synthesize_template(kMatmulLiteralTiling, options);
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    const tunable* cores = find(*t, "MATMUL_CORES");
    REQUIRE(cores != nullptr);
    CHECK(cores->domain_text() == "range [1, 20]");
    const tunable* base_m = find(*t, "BASE_M");
    const tunable* base_n = find(*t, "BASE_N");
    REQUIRE(base_m != nullptr);
    REQUIRE(base_n != nullptr);
    CHECK(base_m->choices == std::vector<int64_t>{16, 32, 64, 128, 256});
    CHECK(base_m->note.find("tile size: a literal matmul base tile, SetFixSplit") !=
          std::string::npos);
    // -1 lets GetTiling decide baseK: it stays, and no BASE_K appears.
    CHECK(find(*t, "BASE_K") == nullptr);
    CHECK(t->source.find("cubeTiling.SetFixSplit(BASE_M, BASE_N, -1);") != std::string::npos);
    CHECK(t->source.find("cubeTiling.SetDim(MATMUL_CORES);") != std::string::npos);
    // The template starts where the program was: at the start values nothing changes.
    CHECK(t->source.find("constexpr uint32_t BASE_M = 128;") != std::string::npos);
    CHECK(t->source.find("constexpr uint32_t BASE_N = 64;") != std::string::npos);
  }

  TEST_CASE("synthesis finds a matmul's named base tile and core split by their calls") {
    synthesis_options options{20};
    options.read_dataflow = false;
    result<synthesized_template> t = synthesize_template(kMatmulNamedTiling, options);
    REQUIRE_MESSAGE(t.ok(), t.error().to_string());
    const tunable* cores = find(*t, "CUBE_CORES");
    REQUIRE(cores != nullptr);
    CHECK(cores->note.find("core cap: the matmul's core split, SetDim") != std::string::npos);
    for (const char* name : {"TILE_M", "TILE_N", "TILE_K"}) {
      INFO(name);
      const tunable* tile = find(*t, name);
      REQUIRE(tile != nullptr);
      CHECK(tile->choices == std::vector<int64_t>{16, 32, 64, 128, 256});
      CHECK(tile->note.find("tile size: a matmul base tile, SetFixSplit in") != std::string::npos);
    }
  }
}
