// The GM guard under both of its mechanisms (issue 30): a protection key where the CPU has one,
// and the pages' protection, which the simulator falls back to elsewhere. A CPU with keys would
// otherwise never run the fallback, so the tests choose it.
#include <doctest/doctest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "npu/sim/runtime/crash_report.hpp"
#include "npu/sim/runtime/gm_guard.hpp"
#include "sim/forked_child.hpp"

namespace gm_guard_test {

using aopt::sim::gm_guard;

// Two pages of "GM" in a mapping of their own, as the driver allocates it.
class gm_pages {
 public:
  gm_pages() {
    bytes_ = 2 * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    void* p = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    data_ = static_cast<uint8_t*>(p);
    std::memset(data_, 7, bytes_);
  }
  ~gm_pages() { ::munmap(data_, bytes_); }
  gm_pages(const gm_pages&) = delete;
  gm_pages& operator=(const gm_pages&) = delete;
  gm_guard::span span() const { return {data_, bytes_}; }
  volatile uint8_t* last_byte() const { return data_ + bytes_ - 1; }

 private:
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
};

using aopt::sim::testing::child_end;

// Runs `touch` in a child process as a core's kernel (the guard's access taken from its thread)
// with the simulator's crash report installed.
template <typename Touch>
child_end run_as_kernel(const gm_guard& guard, Touch touch) {
  return aopt::sim::testing::run_in_forked_child([&] {
    aopt::sim::install_crash_report();
    guard.kernel_starts();
    touch();
    guard.kernel_ended();
  });
}

}  // namespace gm_guard_test

using namespace gm_guard_test;

TEST_SUITE("sim") {
  TEST_CASE("the GM guard: no access while a kernel runs, access inside a window, both ways") {
    for (const auto how : {gm_guard::mechanism::best_available, gm_guard::mechanism::pages}) {
      const bool fallback = how == gm_guard::mechanism::pages;
      CAPTURE(fallback);
      gm_pages gm;
      gm_guard guard({gm.span()}, how);
      if (fallback) CHECK_FALSE(guard.keyed());
      INFO("protection key in use: " << guard.keyed());

      // A kernel's raw read and its raw write fault, and the crash report names untraced work.
      const child_end read = run_as_kernel(guard, [&] { (void)*gm.last_byte(); });
      INFO(read.stderr_text);
      CHECK(aopt::sim::testing::died_of_untraced_gm(read));
      const child_end write = run_as_kernel(guard, [&] { *gm.last_byte() = 1; });
      CHECK(aopt::sim::testing::died_of_untraced_gm(write));

      // Inside a window (nested, as an API calling another one) the kernel reads and writes;
      // after the outer window closes it faults again.
      const child_end windowed = run_as_kernel(guard, [&] {
        {
          aopt::sim::gm_window outer(&guard);
          {
            aopt::sim::gm_window inner(&guard);
            *gm.last_byte() = 9;
          }
          if (*gm.last_byte() != 9) ::_exit(3);
        }
        (void)*gm.last_byte();
      });
      INFO(windowed.stderr_text);
      CHECK(aopt::sim::testing::died_of_untraced_gm(windowed));
      const child_end inside = run_as_kernel(guard, [&] {
        aopt::sim::gm_window open(&guard);
        *gm.last_byte() = 9;
      });
      CHECK(inside.exited_zero);
    }
  }

  TEST_CASE("the GM guard gives every access back when it ends, under both mechanisms") {
    for (const auto how : {gm_guard::mechanism::best_available, gm_guard::mechanism::pages}) {
      CAPTURE(how == gm_guard::mechanism::pages);
      gm_pages gm;
      { gm_guard guard({gm.span()}, how); }
      // In this process: a fault here would end the test run.
      *gm.last_byte() = 5;
      CHECK(*gm.last_byte() == 5);
    }
  }
}
