// Operators written in the style of public ones (issue 34: breadth against operators nobody
// showed us): one package per category the wild set lacks, each our own code laid out as kernel
// teams lay theirs out (helper headers in op_kernel/, kernel classes in namespaces, tiling
// classes with library tiling structs as fields, several tiling keys, attributes, short last
// cores and loops). Each must evaluate ok on the simulator with its sources as they are; every
// failure met while writing them was a gap of aopt's, fixed as a class.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "npu/evaluate_on_simulator.hpp"
#include "npu/op_package.hpp"

namespace fs = std::filesystem;

// A named namespace: the npu tests are built in unity batches.
namespace style_operators_test {

const fs::path style_ops_dir = fs::path(AOPT_TEST_DATA_DIR) / "ops";

void check_evaluates_ok(const std::string& name) {
  INFO(name);
  auto op = aopt::npu::load_op_package(style_ops_dir / name);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  const auto r = aopt::testing::evaluate_on_simulator(op.value());
  CHECK_MESSAGE(r.ok(), nlohmann::json(r).dump(1));
  CHECK(r.latency_us > 0.0);
}

}  // namespace style_operators_test

using style_operators_test::check_evaluates_ok;

TEST_SUITE("npu") {
  TEST_CASE("normalisation in the public style: rms_norm_custom (half, tiling key by dtype)") {
    check_evaluates_ok("rms_norm_custom");
  }
  TEST_CASE("normalisation in the public style: group_norm_custom (Brcb, block-stride-0 Mul)") {
    check_evaluates_ok("group_norm_custom");
  }
  TEST_CASE("softmax in the public style: softmax_custom (SoftMaxTiling in the tiling class)") {
    check_evaluates_ok("softmax_custom");
  }
  TEST_CASE("reduction in the public style: row_argmax_custom (ReduceMax with its index)") {
    check_evaluates_ok("row_argmax_custom");
  }
  TEST_CASE("top-k in the public style: sort_topk_custom (full Sort, Extract, GetSortTmpSize)") {
    check_evaluates_ok("sort_topk_custom");
  }
  TEST_CASE("type conversion in the public style: cast_round_custom (round mode as tiling key)") {
    check_evaluates_ok("cast_round_custom");
  }
  TEST_CASE("broadcast in the public style: scale_bias_broadcast_custom (Broadcast both axes)") {
    check_evaluates_ok("scale_bias_broadcast_custom");
  }
  TEST_CASE("a lookup in the public style: embedding_gather_custom (a row's GM by GetPhyAddr)") {
    // float32_t rows, GlobalTensor views set to tableGm[row * dim].GetPhyAddr(), the A2 copy
    // chosen by __CCE_AICORE__, a loop marked `#pragma bisheng auto_sync parallel`.
    check_evaluates_ok("embedding_gather_custom");
  }
  TEST_CASE("a sparse reduction in the public style: segment_sum_custom (CSR offsets drawn)") {
    // "distribution": "offsets" (0 first, the value count last, empty segments among them),
    // chunked ReduceSum per segment with the partial sums added on the scalar unit.
    check_evaluates_ok("segment_sum_custom");
  }
  TEST_CASE("AscendC templates called unqualified with explicit arguments: explicit_args_add") {
    // `DataCopy<T>(...)`, `Add<T>(...)` with no `using namespace AscendC`: found by
    // argument-dependent lookup, which candidates get by compiling as C++20.
    check_evaluates_ok("explicit_args_add");
  }
  TEST_CASE("a matmul in the public style: matmul_transpose_accumulate (A transposed, enAtomic)") {
    // `using namespace matmul;` alone with GetSysWorkSpacePtr() unqualified, as the public
    // Matmul samples write it; SetTensorA(a, isTransA) over a K x M a; IterateAll(c, 1) adding
    // the product to the ref output c in GM.
    check_evaluates_ok("matmul_transpose_accumulate");
  }
}
