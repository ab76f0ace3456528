#include "agent/template_synthesis.hpp"

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

}  // namespace

TEST_SUITE("agent") {
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
    CHECK(s.find("static constexpr uint32_t BUFFER_NUM = 1;  // tunable: choice {1, 2}  queues per "
                 "tensor") != std::string::npos);
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
