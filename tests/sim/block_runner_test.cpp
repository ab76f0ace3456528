// block_runner: blocks take turns in order; SyncAll parks a block until every block reaches it;
// failures and SyncAlls some block never reaches end the launch with every block unwound.
#include "npu/sim/runtime/block_runner.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "npu/sim/runtime/core_context.hpp"

namespace aopt::sim {
namespace {

// Counts blocks whose stack was unwound, to show parked blocks do not leak.
struct unwind_counter {
  explicit unwind_counter(int& n) : n_(n) {}
  ~unwind_counter() { ++n_; }
  int& n_;
};

TEST_SUITE("sim") {
  TEST_CASE("block_runner: without SyncAll the blocks run one after another, in order") {
    block_runner runner(5);
    std::vector<uint32_t> order;
    runner.run([&](uint32_t b) { order.push_back(b); });
    CHECK(order == std::vector<uint32_t>{0, 1, 2, 3, 4});
  }

  TEST_CASE("block_runner: every block's work before a SyncAll precedes any block's work after") {
    block_runner runner(3);
    std::vector<std::string> log;
    runner.run([&](uint32_t b) {
      log.push_back("a" + std::to_string(b));
      runner.sync_all(b);
      log.push_back("b" + std::to_string(b));
      runner.sync_all(b);
      log.push_back("c" + std::to_string(b));
    });
    CHECK(log == std::vector<std::string>{"a0", "a1", "a2", "b0", "b1", "b2", "c0", "c1", "c2"});
  }

  TEST_CASE("block_runner: a block returning while others wait in SyncAll is a deadlock") {
    block_runner runner(3);
    int unwound = 0;
    std::string message;
    try {
      runner.run([&](uint32_t b) {
        unwind_counter guard(unwound);
        if (b != 1) runner.sync_all(b);
      });
    } catch (const sim_error& e) {
      CHECK(e.kind() == "deadlock");
      message = e.what();
    }
    CHECK(message.find("block 0 waits in it but block 1 returned") != std::string::npos);
    CHECK(unwound == 3);
  }

  TEST_CASE("block_runner: the first failure in turn order wins and parked blocks unwind") {
    block_runner runner(4);
    int unwound = 0;
    std::string message;
    try {
      runner.run([&](uint32_t b) {
        unwind_counter guard(unwound);
        runner.sync_all(b);
        if (b >= 2) throw std::runtime_error("block " + std::to_string(b) + " failed");
        runner.sync_all(b);
      });
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    CHECK(message == "block 2 failed");
    CHECK(unwound == 4);
  }
}

}  // namespace
}  // namespace aopt::sim
