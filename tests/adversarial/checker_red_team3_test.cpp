// Issue 30 item 7, a third red-team round: exploits written as an attacker would against the
// honest tests/data/ops/add_tiled (z = x + y, float16, 8 cores; honest 19.00 us), of classes the
// earlier rounds did not try, each evaluated with the static screen off (the trusted checker
// and the sandbox alone) and followed by the honest candidate at its true latency. Classes:
//   expected outputs  block 0 walks every descriptor the process holds, looking for the
//   by descriptor     reference's doubles of z to copy into z instead of computing it (the
//                     expected outputs live in aopt and in the judge's process, which starts
//                     after the candidate's has ended, never in a descriptor of its own): it
//                     finds none and leaves z unwritten;
//   late work         a SIGALRM handler, armed by the kernel, adds x and y into z through raw
//   (signals)         pointers after the kernel has returned, while the driver packs the
//                     delivery: work the trace does not hold, done outside the kernel's time;
//   late work         a detached thread does the same, racing the delivery;
//   (threads)
//   signals to others the kernel sends SIGKILL to its parent and to every process it may
//                     signal (kill(-1)): its PID namespace holds only itself, so it reaches
//                     nothing, and the add it then does honestly is ok at its true latency;
//   stack exhaustion  block 0 recurses until its stack is gone: the candidate's crash;
//   log flooding      block 0 writes 320 MiB to stderr and then adds honestly: its stderr was
//                     capped only by the delivery channel's limit (256 MiB and more), so aopt
//                     held it all (512 MiB took aopt to 1.1 GB resident, against 69 MB for
//                     the honest add); a child's stderr is now capped at 4 MiB.
#include <sys/resource.h>

#include <string>

#include <doctest/doctest.h>

#include "adversarial/checker_fixture.hpp"

using aopt::npu::eval_result;
using aopt::npu::eval_status;
using aopt::testing::checker_fixture;

namespace {

// add_tiled's kernel with `prelude` after its include and `call` in place of `op.Run();`.
std::string add_tiled_with(const checker_fixture& f, const std::string& prelude,
                           const std::string& call) {
  const std::string include = "#include \"kernel_operator.h\"\n";
  std::string kernel = checker_fixture::replace(f.op.kernel_source, include, include + prelude);
  return checker_fixture::replace(kernel, "  op.Run();\n", call);
}

const char* const steal_prelude = R"(#include <sys/stat.h>
#include <unistd.h>
namespace {
// Any descriptor holding total doubles that look like sums of two values in [-2, 2].
void StealExpected(GM_ADDR z, uint32_t total) {
  for (int fd = 0; fd < 1024; ++fd) {
    struct stat st;
    if (::fstat(fd, &st) != 0) continue;
    const uint64_t want = (uint64_t)total * sizeof(double);
    for (off_t at = 0; at + (off_t)want <= st.st_size; at += 8) {
      double v[4];
      if (::pread(fd, v, sizeof v, at) != (ssize_t)sizeof v) break;
      bool plausible = true;
      for (double d : v) plausible = plausible && d > -4.5 && d < 4.5 && d != 0;
      if (!plausible) continue;
      half* out = (half*)z;
      for (uint32_t i = 0; i < total; ++i) {
        double d = 0;
        if (::pread(fd, &d, 8, at + 8 * i) != 8) return;
        out[i] = (half)(float)d;
      }
      return;
    }
  }
}
}  // namespace
)";

const char* const alarm_prelude = R"(#include <signal.h>
#include <sys/time.h>
namespace {
GM_ADDR g_x;
GM_ADDR g_y;
GM_ADDR g_z;
uint32_t g_n;
void Late(int) {
  for (uint32_t i = 0; i < g_n; ++i)
    ((half*)g_z)[i] = (half)((float)((half*)g_x)[i] + (float)((half*)g_y)[i]);
}
}  // namespace
)";

const char* const thread_prelude = "#include <thread>\n";

const char* const kill_prelude = "#include <signal.h>\n#include <unistd.h>\n";

const char* const flood_prelude = "#include <cstdio>\n#include <string>\n";

// This process's peak resident memory so far.
long peak_resident_kib() {
  rusage used{};
  REQUIRE(::getrusage(RUSAGE_SELF, &used) == 0);
  return used.ru_maxrss;
}

const char* const stack_prelude = R"(namespace {
int Deep(volatile int* p, int n) {
  volatile char pad[4096];
  pad[0] = (char)n;
  return n == 0 ? *p : Deep(p, n - 1) + pad[0];
}
}  // namespace
)";

// Raw work running beside and after the kernel races the runtime: the untraced writes
// leave the outputs unwritten, or land before the outputs are delivered and are caught as
// work the trace does not account for, or the race corrupts the candidate's heap and it
// dies by a signal first. Which one comes first is the scheduler's choice; each is the
// candidate's failure, never a latency and never the infrastructure's fault.
bool rejected_as_candidates_fault(const eval_result& r) {
  const bool unwritten =
      r.status == eval_status::precision_error && r.error_kind == "unwritten_output";
  const bool untraced = r.status == eval_status::precision_error && r.error_kind == "untraced_work";
  const bool crashed = r.status == eval_status::runtime_error && r.error_kind == "signal";
  return unwritten || untraced || crashed;
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("red team 3: no descriptor of the candidate holds the expected outputs") {
    checker_fixture f;
    const std::string stealing = add_tiled_with(
        f, steal_prelude,
        "  if (AscendC::GetBlockIdx() == 0) StealExpected(z, tilingData.totalLength);\n");
    const eval_result r = f.unscreened.evaluate(f.op, f.op.host_source, stealing, {});
    CHECK_MESSAGE(r.status == eval_status::precision_error, f.describe(r));
    CHECK(r.error_kind == "unwritten_output");
    CHECK(r.latency_us == 0);
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 3: raw work done after the kernel, by a signal handler or a thread") {
    checker_fixture f;
    const std::string by_alarm =
        add_tiled_with(f, alarm_prelude, R"(  if (AscendC::GetBlockIdx() == 0) {
    g_x = x; g_y = y; g_z = z; g_n = tilingData.totalLength;
    ::signal(SIGALRM, Late);
    struct itimerval t = {};
    t.it_value.tv_usec = 200;
    t.it_interval.tv_usec = 200;
    ::setitimer(ITIMER_REAL, &t, nullptr);
  }
)");
    eval_result r = f.unscreened.evaluate(f.op, f.op.host_source, by_alarm, {});
    CHECK_MESSAGE(rejected_as_candidates_fault(r), f.describe(r));
    CHECK(r.latency_us == 0);
    f.check_honest_still_ok();

    const std::string by_thread =
        add_tiled_with(f, thread_prelude, R"(  if (AscendC::GetBlockIdx() == 0) {
    const uint32_t n = tilingData.totalLength;
    std::thread([x, y, z, n] {
      for (;;)
        for (uint32_t i = 0; i < n; ++i)
          ((half*)z)[i] = (half)((float)((half*)x)[i] + (float)((half*)y)[i]);
    }).detach();
  }
)");
    r = f.unscreened.evaluate(f.op, f.op.host_source, by_thread, {});
    CHECK_MESSAGE(rejected_as_candidates_fault(r), f.describe(r));
    CHECK(r.latency_us == 0);
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 3: SIGKILL to the parent and to every process reaches neither") {
    checker_fixture f;
    const std::string killing = add_tiled_with(f, kill_prelude,
                                               "  if (AscendC::GetBlockIdx() == 0) {\n"
                                               "    ::kill(::getppid(), SIGKILL);\n"
                                               "    ::kill(-1, SIGKILL);\n"
                                               "  }\n"
                                               "  op.Run();\n");
    const eval_result r = f.unscreened.evaluate(f.op, f.op.host_source, killing, {});
    // This process is alive to look: the candidate's signals reached nothing outside it.
    CHECK_MESSAGE(r.ok(), f.describe(r));
    CHECK(r.latency_us == f.honest_latency);
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 3: exhausting the stack is the candidate's crash") {
    checker_fixture f;
    const std::string deep =
        add_tiled_with(f, stack_prelude,
                       "  op.Run();\n"
                       "  volatile int zero = 0;\n"
                       "  if (AscendC::GetBlockIdx() == 0) (void)Deep(&zero, 1 << 20);\n");
    const eval_result r = f.unscreened.evaluate(f.op, f.op.host_source, deep, {});
    CHECK_MESSAGE(r.status == eval_status::runtime_error, f.describe(r));
    CHECK(r.error_kind == "signal");
    f.check_honest_still_ok();
  }

  TEST_CASE("red team 3: a candidate that floods its stderr does not make aopt hold it") {
    checker_fixture f;
    const std::string flooding = add_tiled_with(
        f, flood_prelude,
        "  if (AscendC::GetBlockIdx() == 0) {\n"
        "    std::string line(1 << 20, 'x');\n"
        "    for (int i = 0; i < 320; ++i) std::fwrite(line.data(), 1, line.size(), stderr);\n"
        "  }\n"
        "  op.Run();\n");
    const long before = peak_resident_kib();
    const eval_result r = f.unscreened.evaluate(f.op, f.op.host_source, flooding, {});
    // Its add is honest: ok at the true latency; what it printed cost this process little.
    CHECK_MESSAGE(r.ok(), f.describe(r));
    CHECK(r.latency_us == f.honest_latency);
    CHECK(peak_resident_kib() - before < 64 * 1024);
    f.check_honest_still_ok();
  }
}
