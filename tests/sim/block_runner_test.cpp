// block_runner: blocks take turns in order; SyncAll parks a block until every block reaches it;
// an IBWait hands the turn on until some block sets its flag; failures, SyncAlls some block never
// reaches and flags no block sets end the launch with every block unwound.
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

  TEST_CASE("block_runner: a block waiting for a later block's flag resumes once it is set") {
    block_runner runner(3);
    std::vector<std::string> log;
    runner.run([&](uint32_t b) {
      // Each block waits for the next one's flag; the last sets its own first.
      log.push_back("a" + std::to_string(b));
      if (b + 1 < 3) runner.wait_flag(b, b + 1, "wait " + std::to_string(b));
      log.push_back("b" + std::to_string(b));
      runner.set_flag(b);
    });
    CHECK(log == std::vector<std::string>{"a0", "a1", "a2", "b2", "b1", "b0"});
  }

  TEST_CASE("block_runner: a flag set earlier lets its waiter through at once") {
    block_runner runner(2);
    std::vector<std::string> log;
    runner.run([&](uint32_t b) {
      if (b == 0) runner.set_flag(7);
      if (b == 1) runner.wait_flag(b, 7, "wait");
      log.push_back("b" + std::to_string(b));
    });
    CHECK(log == std::vector<std::string>{"b0", "b1"});
  }

  TEST_CASE("block_runner: flags and SyncAll combine; a flag set after the SyncAll is awaited") {
    block_runner runner(2);
    std::vector<std::string> log;
    runner.run([&](uint32_t b) {
      log.push_back("a" + std::to_string(b));
      runner.sync_all(b);
      if (b == 0) runner.wait_flag(b, 1, "wait");
      log.push_back("b" + std::to_string(b));
      if (b == 1) runner.set_flag(1);
    });
    CHECK(log == std::vector<std::string>{"a0", "a1", "b1", "b0"});
  }

  TEST_CASE("block_runner: a wait for a flag no block sets is a deadlock naming the wait") {
    block_runner runner(3);
    int unwound = 0;
    std::string message;
    try {
      runner.run([&](uint32_t b) {
        unwind_counter guard(unwound);
        if (b == 1) runner.wait_flag(b, 42, "IBWait (line 9): block 1 waits for the flag of X");
        if (b == 2) runner.sync_all(b);
      });
    } catch (const sim_error& e) {
      CHECK(e.kind() == "deadlock");
      message = e.what();
    }
    CHECK(message.find("IBWait (line 9): block 1 waits for the flag of X, which no block sets") ==
          0);
    CHECK(message.find("block 2 waits in a SyncAll") != std::string::npos);
    CHECK(unwound == 3);
  }
}

}  // namespace
}  // namespace aopt::sim
