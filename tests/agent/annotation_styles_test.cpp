// Operator packages whose tiling programs mark tunables the way teams write them: Stage I must
// start on each, and an unreadable mark must fail loudly, naming the file and the line.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "agent/heuristics/heuristic_policies.hpp"

using namespace aopt;
using namespace aopt::agent;

namespace {

npu::op_package package_with(const std::string& host) {
  npu::op_package op;
  op.spec.name = "team_op";
  op.spec.files.host = "op_host/team_op.cpp";
  for (const char* n : {"x", "y"}) op.spec.inputs.push_back({n, npu::dtype::float16, {64, 4096}});
  op.spec.outputs.push_back({"z", npu::dtype::float16, {64, 4096}});
  op.host_source = host;
  op.kernel_source = "// kernel\n";
  return op;
}

std::string host_with(const std::string& declaration) {
  return "#include \"team_op_tiling.h\"\nnamespace optiling {\n" + declaration +
         "\nstatic ge::graphStatus TilingFunc(gert::TilingContext* context)\n{\n"
         "    context->SetBlockDim(BLOCK_DIM);\n    return ge::GRAPH_SUCCESS;\n}\n}\n";
}

// The first Stage I request of an episode on `op`.
mutation_request first_request(const npu::op_package& op) {
  mutation_request request;
  request.op = &op;
  request.tiling = op.host_source;
  request.kernel = op.kernel_source;
  request.best_latency_us = 100;
  return request;
}

// Three Stage I steps; every proposal must parse back with its values inside the domains and
// differ from the start.
void three_steps(const npu::op_package& op) {
  heuristic_mutator_policy policy;
  mutation_request request = first_request(op);
  result<std::vector<tunable>> start = parse_tunables(op.host_source);
  REQUIRE_MESSAGE(start.ok(), start.error().to_string());
  for (int step = 0; step < 3; ++step) {
    result<mutation_reply> reply = policy.mutate(request);
    REQUIRE_MESSAGE(reply.ok(), reply.error().to_string());
    result<std::vector<tunable>> after = parse_tunables(reply->tiling);
    REQUIRE_MESSAGE(after.ok(), after.error().to_string());
    REQUIRE(after->size() == start->size());
    CHECK(current_values(*after) != current_values(*start));
    for (const tunable& t : *after) CHECK(t.admits(t.value));
    request.history.push_back({reply->tiling, 100.0 + step, reply->origin});
    request.policy_state = reply->policy_state;
  }
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE("Stage I starts on every annotation style teams write") {
    const std::vector<std::string> styles = {
        "const uint32_t BLOCK_DIM = 8; // tunable: 1..40",
        "constexpr uint32_t BLOCK_DIM = 8;  // tunable: [1, 40]",
        "static const uint32_t BLOCK_DIM = 8;  // tunable: range [1, 40]",
        "const unsigned BLOCK_DIM = 8;  // tunable: 1-40",
        "#define BLOCK_DIM 8  // tunable: pow2 1..32",
        "const uint32_t BLOCK_DIM = 8;\nconst int64_t TILE_LENGTH = 2048;  // tunable: multiple "
        "of 8, 256..16384",
        "constexpr int32_t BLOCK_DIM = 8;  // tunable: 1..40\nconstexpr int32_t BUFFER_NUM = 1;  "
        "// tunable: {1, 2}",
        "constexpr int32_t BLOCK_DIM = 8;  // tunable: 1..40\nconstexpr size_t BUFFER_NUM = 1;  "
        "// tunable: choice {1, 2}",
        "// tunable: 1..40\nconstexpr uint64_t BLOCK_DIM = 8;",
    };
    for (const std::string& style : styles) {
      INFO(style);
      three_steps(package_with(host_with(style)));
    }
  }

  TEST_CASE("an unreadable mark is an error naming the file and the line, not 'nothing to do'") {
    npu::op_package op = package_with(host_with("const uint32_t BLOCK_DIM = 8; // tunable: 1 to"));
    heuristic_mutator_policy policy;
    result<mutation_reply> reply = policy.mutate(first_request(op));
    REQUIRE_FALSE(reply.ok());
    CHECK(reply.error().code() == status_code::unreadable_input);
    CHECK(reply.error().message().find(
              "op_host/team_op.cpp: line 3: BLOCK_DIM: cannot read domain '1 to'") == 0);
    CHECK(reply.error().message().find("expected a domain like") != std::string::npos);
  }
}
