// The AST screen's own state (npu/sim/device/ast_screen.cpp): what it builds once per process
// must not keep a failure of the machine, and its parser processes (screen_parser_pool.hpp) are
// kept between units within their bounds. Its verdicts on code are tested in
// tests/adversarial/checker_ast_screen_test.cpp.
#include "npu/sim/device/ast_screen.hpp"

#include <signal.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "npu/op_package.hpp"
#include "support/descriptor_exhaustion.hpp"
#include "support/temp_dir.hpp"

TEST_SUITE("npu") {
  TEST_CASE("a screen that could not precompile the shim for want of descriptors recovers") {
    auto op =
        aopt::npu::load_op_package(std::filesystem::path(AOPT_TEST_DATA_DIR) / "ops" / "add_tiled");
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    aopt::testing::temp_dir work;
    const aopt::npu::ast_screen screen(aopt::npu::default_sim_toolchain(), work.path());
    std::optional<aopt::npu::screen_finding> starved;
    {
      aopt::testing::descriptor_exhaustion limit(0);
      starved = screen.screen(*op, op->host_source, &op->kernel_source);
    }
    REQUIRE(starved.has_value());
    CHECK(starved->unjudged);
    // With descriptors again the shim's headers are built and the honest package passes.
    const auto again = screen.screen(*op, op->host_source, &op->kernel_source);
    CHECK_MESSAGE(!again.has_value(), (again ? again->message() : std::string()));
  }
}

namespace {

aopt::npu::op_package add_tiled() {
  auto op =
      aopt::npu::load_op_package(std::filesystem::path(AOPT_TEST_DATA_DIR) / "ops" / "add_tiled");
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

// The honest kernel with a comment of its own: another unit to parse, the same code.
std::string honest_variant(const aopt::npu::op_package& op, int n) {
  return op.kernel_source + "\n// variant " + std::to_string(n) + "\n";
}

// A template instantiated 2^30 times: libclang makes every one.
std::string exploding_kernel(const aopt::npu::op_package& op) {
  return op.kernel_source +
         "\nnamespace {\ntemplate <int N, int M> struct Boom {\n"
         "  static constexpr long v = Boom<N - 1, 2 * M>::v + Boom<N - 1, 2 * M + 1>::v;\n};\n"
         "template <int M> struct Boom<0, M> { static constexpr long v = M; };\n"
         "constexpr long kBoom = Boom<30, 1>::v;\n}\n";
}

// This process's children running the screen's parser program.
std::vector<pid_t> parser_children() {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    std::ifstream children(task.path() / "children");
    for (pid_t pid = 0; children >> pid;) {
      const auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
      if (!ec && exe.filename() == "aopt_screen_unit") found.push_back(pid);
    }
  }
  return found;
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("the screen's parser processes judge unit after unit without starting again") {
    const aopt::npu::op_package op = add_tiled();
    aopt::testing::temp_dir work;
    const aopt::npu::ast_screen screen(aopt::npu::default_sim_toolchain(), work.path());
    for (int n = 0; n < 4; ++n) {
      const std::string kernel = honest_variant(op, n);
      const auto found = screen.screen(op, op.host_source, &kernel);
      CHECK_MESSAGE(!found.has_value(), (found ? found->message() : std::string()));
    }
    CHECK(screen.units_parsed() == 5);  // the host unit once, four kernels
    // The two units of a screen are parsed at once: two processes at most, kept between units.
    CHECK(screen.parser_processes_started() >= 1);
    CHECK(screen.parser_processes_started() <= 2);
  }

  TEST_CASE(
      "a unit past the screen's bounds ends its own parser process, and the next unit is judged") {
    const aopt::npu::op_package op = add_tiled();
    aopt::npu::screen_parser_limits by_cpu;
    by_cpu.cpu_seconds = 2;
    aopt::npu::screen_parser_limits by_wall;
    by_wall.wall_seconds = 2;
    for (const aopt::npu::screen_parser_limits& limits : {by_cpu, by_wall}) {
      aopt::testing::temp_dir work;
      const aopt::npu::ast_screen screen(aopt::npu::default_sim_toolchain(), work.path(), limits);
      const std::string honest = honest_variant(op, 0);
      CHECK_FALSE(screen.screen(op, op.host_source, &honest).has_value());
      const size_t kept = parser_children().size();
      REQUIRE(kept >= 1);
      const std::string boom = exploding_kernel(op);
      const auto refused = screen.screen(op, op.host_source, &boom);
      REQUIRE(refused.has_value());
      CHECK_FALSE(refused->unjudged);
      CHECK(refused->construct == "code the screen cannot parse within its bounds");
      CHECK(refused->past_bounds);
      CHECK(std::string(refused->error_kind()) == "screen_limit");
      CHECK(parser_children().size() == kept - 1);  // the process that parsed it is gone
      const std::string next = honest_variant(op, 1);
      const auto judged = screen.screen(op, op.host_source, &next);
      CHECK_MESSAGE(!judged.has_value(), (judged ? judged->message() : std::string()));
    }
  }

  TEST_CASE("a parser process that died while idle is replaced, and its unit judged") {
    const aopt::npu::op_package op = add_tiled();
    aopt::testing::temp_dir work;
    const aopt::npu::ast_screen screen(aopt::npu::default_sim_toolchain(), work.path());
    const std::string first = honest_variant(op, 0);
    CHECK_FALSE(screen.screen(op, op.host_source, &first).has_value());
    const std::vector<pid_t> idle = parser_children();
    REQUIRE_FALSE(idle.empty());
    // Whether the pool finds out as it sends the next unit or as it awaits the answer, the unit
    // goes to a new process.
    for (pid_t pid : idle) REQUIRE(::kill(pid, SIGKILL) == 0);
    const std::string second = honest_variant(op, 1);
    const auto found = screen.screen(op, op.host_source, &second);
    CHECK_MESSAGE(!found.has_value(), (found ? found->message() : std::string()));
    CHECK(screen.units_parsed() == 3);
  }
}
