// op.json's validation_shapes (issue 17 item 6): every corpus operator lists some, they parse
// and reshape the package; broken entries fail loading with the field named.
#include "npu/validation_shapes.hpp"

#include <filesystem>

#include <doctest/doctest.h>

namespace fs = std::filesystem;
using namespace aopt::npu;

TEST_SUITE("adversarial") {
  TEST_CASE("every corpus operator has validation shapes other than its tuning shapes") {
    size_t ops = 0;
    for (const auto& level : fs::directory_iterator(fs::path(AOPT_SOURCE_DIR) / "corpus")) {
      for (const auto& dir : fs::directory_iterator(level.path())) {
        auto op = load_op_package(dir.path());
        REQUIRE_MESSAGE(op.ok(), op.error().to_string());
        const auto& shapes = op->spec.validation_shapes;
        REQUIRE_MESSAGE(!shapes.empty(), dir.path().string());
        const op_package reshaped = with_shapes(*op, shapes.front());
        CHECK_MESSAGE(reshaped.spec.io_bytes() < op->spec.io_bytes(), dir.path().string());
        ++ops;
      }
    }
    CHECK(ops >= 50);
  }

  TEST_CASE("a validation shape naming no tensor or of the wrong rank fails loading") {
    nlohmann::json j = {{"name", "t"},
                        {"inputs", {{{"name", "x"}, {"dtype", "float32"}, {"shape", {4, 8}}}}},
                        {"outputs", {{{"name", "z"}, {"dtype", "float32"}, {"shape", {4, 8}}}}}};
    j["validation_shapes"] = {{{"x", {2, 8}}, {"z", {2, 8}}}};
    REQUIRE(parse_op_spec(j).ok());
    j["validation_shapes"] = {{{"w", {2, 8}}}};
    CHECK(parse_op_spec(j).error().message().find("validation_shapes[0].w: no input") !=
          std::string::npos);
    j["validation_shapes"] = {{{"x", {16}}}};
    CHECK(parse_op_spec(j).error().message().find("rank 2") != std::string::npos);
    j["validation_shapes"] = {{{"x", {0, 8}}}};
    CHECK(parse_op_spec(j).error().message().find("positive") != std::string::npos);
  }
}
