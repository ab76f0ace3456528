// The CANN device end to end with the stand-in toolchain of tests/data/cann/standin: shell
// scripts that compile nothing, copy the input to the output (or fail as their markers say) and
// write msprof's files in the documented formats with seeded noise. Real processes, real files,
// the real reference on the host; no NPU, and no number here is a hardware measurement.
#include "npu/cann/cann_device.hpp"

#include <fstream>
#include <future>
#include <set>
#include <sstream>

#include <doctest/doctest.h>

#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace aopt::npu;

namespace {

const fs::path data_dir = fs::path(AOPT_TEST_DATA_DIR) / "cann";
const std::string standin = (data_dir / "standin").string();

op_package load_copy() {
  auto op = load_op_package(data_dir / "copy_custom");
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

// One cache of compiled references for every test here, across the test processes ctest
// starts: the copy operator's reference compiles once. The cache is content-addressed and
// publishes each runner by an atomic rename, so concurrent tests may share it.
fs::path shared_cache() {
  return fs::temp_directory_path() / "aopt-test-cann-reference-cache";
}

cann_device_options standin_options(const fs::path& work, const std::string& format = "old") {
  cann_device_options o;
  o.cache_dir = shared_cache();
  o.commands.build = "sh " + standin + "/build.sh {op_dir} {work_dir} {kernel_name}";
  o.commands.install = "";
  o.commands.run = "sh " + standin + "/run.sh {op_dir} {work_dir} {device_id}";
  o.commands.profile = "sh " + standin +
                       "/profile.sh {op_dir} {work_dir} {kernel_name} {device_id} " + format + " 5";
  o.commands.cann_version = "sh " + standin + "/version.sh cann";
  o.commands.driver_version = "sh " + standin + "/version.sh driver";
  o.work_dir = work;
  // Few samples: these tests check the plumbing; the protocol's statistics have their own.
  o.protocol.warmup_runs = 0;
  o.protocol.min_samples = 3;
  o.protocol.max_samples = 3;
  o.protocol.finalist_factor = 2;
  return o;
}

std::shared_ptr<cann_device> make(const cann_device_options& o) {
  auto d = cann_device::create(o);
  REQUIRE_MESSAGE(d.ok(), d.error().to_string());
  return *d;
}

eval_options quick() {
  eval_options o;
  o.timeout_seconds = 20;
  o.compile_timeout_seconds = 20;
  return o;
}

// The package's kernel with a marker comment for the stand-in scripts.
std::string kernel_with(const op_package& op, const std::string& marker) {
  return "// " + marker + "\n" + op.kernel_source;
}

// Directories under `dir` (a live scratch dir also has an owner lock file beside it).
size_t directories(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_directory() ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("cann: a correct candidate is checked on every input set and measured from msprof") {
  aopt::testing::temp_dir tmp;
  auto options = standin_options(tmp.path());
  options.protocol.warmup_runs = 1;
  options.protocol.min_samples = 6;  // the smallest n whose signed-rank interval reaches 95 %
  options.protocol.max_samples = 6;
  auto device = make(options);
  CHECK(device->profile_id() == "cann:ascend910b4");
  const op_package op = load_copy();
  eval_result r = device->evaluate(op, op.host_source, op.kernel_source, quick());
  REQUIRE_MESSAGE(r.ok(), r.message);
  CHECK(r.device == "cann");
  CHECK_FALSE(r.latency_is_simulated);
  CHECK(r.latency_us == doctest::Approx(20).epsilon(0.08));
  CHECK(r.measurement.measured);
  CHECK(r.measurement.n == 6);
  CHECK(r.measurement.verdict.empty());  // the operator's first candidate: nothing to compare
  CHECK(r.measurement.q1_us <= r.measurement.median_us);
  CHECK(r.measurement.median_us <= r.measurement.q3_us);
  CHECK(r.measurement.device_id == "0");
  CHECK(r.measurement.cann_version == "runtime_running_version=[8.0.RC1.standin]");
  CHECK(r.measurement.driver_version == "Version=24.1.rc2.standin");
  CHECK(r.measurement.clock_mhz == 1500);
  CHECK(r.profile.block_dim == 1);
  CHECK(r.profile.mte2.time_us == 8);
  CHECK(r.profile.gm_read_bytes == 4096);

  // A twice-as-fast candidate is compared in pairs and accepted; an equal one is not.
  eval_result fast =
      device->evaluate(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=10"), quick());
  REQUIRE_MESSAGE(fast.ok(), fast.message);
  CHECK(fast.measurement.verdict == "faster");
  CHECK(fast.measurement.pairs == 6);
  CHECK(fast.measurement.speedup == doctest::Approx(2).epsilon(0.1));
  CHECK(fast.measurement.speedup_ci_low > 1.03);
  CHECK(fast.measurement.n == 12);  // the new best, re-measured as a finalist
  CHECK(improves_on(fast, r.latency_us));
  eval_result same =
      device->evaluate(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=10.0"), quick());
  REQUIRE_MESSAGE(same.ok(), same.message);
  CHECK(same.measurement.verdict == "not_faster");
  CHECK_FALSE(improves_on(same, 1e9));
  // Only the baseline's and the best's work dirs remain.
  CHECK(directories(tmp.path()) == 2);
}

TEST_CASE("cann: the new column spelling and op_summary parse through the device") {
  for (const char* format : {"new", "summary"}) {
    CAPTURE(format);
    aopt::testing::temp_dir tmp;
    auto device = make(standin_options(tmp.path(), format));
    const op_package op = load_copy();
    eval_result r =
        device->evaluate(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=33"), quick());
    REQUIRE_MESSAGE(r.ok(), r.message);
    CHECK(r.latency_us == doctest::Approx(33).epsilon(0.08));
    CHECK(r.profile.block_dim == 1);
  }
}

TEST_CASE("cann: failures map to statuses that name the command") {
  aopt::testing::temp_dir tmp;
  auto options = standin_options(tmp.path());
  auto device = make(options);
  const op_package op = load_copy();
  auto eval = [&](const std::string& marker, const eval_options& o = quick()) {
    return device->evaluate(op, op.host_source, kernel_with(op, marker), o);
  };

  eval_result build = eval("STANDIN_BUILD_ERROR");
  CHECK(build.status == eval_status::compile_error);
  CHECK(build.error_kind == "compile");
  CHECK(build.message.find("the build command failed (exit code 1)") != std::string::npos);
  CHECK(build.message.find("'Undeclared' was not declared") != std::string::npos);

  eval_result crash = eval("STANDIN_CRASH");
  CHECK(crash.status == eval_status::runtime_error);
  CHECK(crash.message.find("input set 0 (seed 7): the run command failed (exit code 1)") == 0);
  CHECK(crash.message.find("507011") != std::string::npos);

  eval_result wrong = eval("STANDIN_WRONG");
  CHECK(wrong.status == eval_status::precision_error);
  CHECK(wrong.error_kind == "mismatch");
  CHECK(wrong.message.find("input set 0 (seed 7): ") == 0);
  CHECK(wrong.message.find("y") != std::string::npos);

  eval_result missing = eval("STANDIN_NO_OUTPUT");
  CHECK(missing.status == eval_status::runtime_error);
  CHECK(missing.error_kind == "missing_output");
  CHECK(missing.message.find("the run command wrote no output/y.bin") != std::string::npos);

  // A step past its limit: killed, and classified by the step.
  auto limited = [&](const std::string& marker, double eval_options::*limit, double seconds) {
    eval_options o = quick();
    o.*limit = seconds;
    return eval(marker, o);
  };
  eval_result hang = limited("STANDIN_HANG", &eval_options::timeout_seconds, 1);
  CHECK(hang.status == eval_status::runtime_error);
  CHECK(hang.error_kind == "run_timeout");
  CHECK(hang.message == "input set 0 (seed 7): the run command ran longer than 1 s and was killed");
  REQUIRE_FALSE(hang.diagnostics.empty());
  CHECK(hang.diagnostics.back().find("command: sh ") == 0);
  CHECK(hang.diagnostics.back().find("/run.sh") != std::string::npos);

  eval_result build_hang = limited("STANDIN_BUILD_HANG", &eval_options::compile_timeout_seconds, 1);
  CHECK(build_hang.status == eval_status::compile_error);
  CHECK(build_hang.error_kind == "build_timeout");
  CHECK(build_hang.message == "the build command ran longer than 1 s and was killed");

  eval_result profile_hang = limited("STANDIN_PROFILE_HANG", &eval_options::timeout_seconds, 2);
  CHECK(profile_hang.status == eval_status::runtime_error);
  CHECK(profile_hang.error_kind == "profile_timeout");
  CHECK(profile_hang.message.find("the profile command ran longer than 2 s and was killed") !=
        std::string::npos);

  eval_result no_csv = eval("STANDIN_NO_CSV");
  CHECK(no_csv.status == eval_status::infra_error);
  CHECK(no_csv.error_kind == "profile");
  CHECK(no_csv.message.find("neither an OPPROF_* directory nor an op_summary_*.csv") !=
        std::string::npos);

  // A profiler whose OpBasicInfo.csv lacks a column: infra_error naming file and column.
  aopt::testing::temp_dir tmp2;
  auto broken_options = standin_options(tmp2.path());
  broken_options.commands.profile =
      "mkdir -p {work_dir}/prof/OPPROF_1_X && printf 'Op Name,Task "
      "Duration(us)\\ncopy_custom,3\\n' "
      "> {work_dir}/prof/OPPROF_1_X/OpBasicInfo.csv";
  auto broken = make(broken_options);
  eval_result r = broken->evaluate(op, op.host_source, op.kernel_source, quick());
  CHECK(r.status == eval_status::infra_error);
  CHECK(r.message.find("OpBasicInfo.csv: no column 'Block Dim' (or 'Block Num')") !=
        std::string::npos);

  auto no_npu = standin_options(tmp.path());
  no_npu.device_ids.clear();
  CHECK_FALSE(cann_device::create(no_npu).ok());
}

TEST_CASE("cann: failing install, flush and profile commands are infra_error naming the command") {
  const op_package op = load_copy();
  auto failing = [&](auto change) {
    aopt::testing::temp_dir tmp;
    auto options = standin_options(tmp.path());
    change(options);
    return make(options)->evaluate(op, op.host_source, op.kernel_source, quick());
  };
  eval_result install = failing(
      [](cann_device_options& o) { o.commands.install = "echo 'no space left' >&2; exit 5"; });
  CHECK(install.status == eval_status::infra_error);
  CHECK(install.error_kind == "install_failed");
  CHECK(install.message == "the install command failed (exit code 5): no space left");

  eval_result flush =
      failing([](cann_device_options& o) { o.commands.flush = "echo 'device busy' >&2; exit 3"; });
  CHECK(flush.status == eval_status::infra_error);
  CHECK(flush.error_kind == "flush_failed");
  CHECK(flush.message.find("the flush command failed (exit code 3): device busy") !=
        std::string::npos);

  eval_result profile = failing(
      [](cann_device_options& o) { o.commands.profile = "echo 'msprof: boom' >&2; exit 9"; });
  CHECK(profile.status == eval_status::infra_error);
  CHECK(profile.error_kind == "profile_failed");
  CHECK(profile.message.find("the profile command failed (exit code 9): msprof: boom") !=
        std::string::npos);
}

TEST_CASE("cann: a finalist is re-measured alone with more samples and changes no best") {
  aopt::testing::temp_dir tmp;
  auto device = make(standin_options(tmp.path()));
  const op_package op = load_copy();
  eval_result baseline = device->evaluate(op, op.host_source, op.kernel_source, quick());
  REQUIRE_MESSAGE(baseline.ok(), baseline.message);

  auto again = device->remeasure(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=5"), quick());
  REQUIRE(again.has_value());
  REQUIRE_MESSAGE(again->ok(), again->message);
  CHECK(again->latency_us == doctest::Approx(5).epsilon(0.08));
  CHECK(again->measurement.n == 6);  // max_samples x finalist_factor
  CHECK(again->measurement.verdict.empty());
  CHECK(again->measurement.pairs == 0);

  // The 5 us candidate did not become the best: a 10 us one is still faster than the baseline.
  eval_result next =
      device->evaluate(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=10"), quick());
  REQUIRE_MESSAGE(next.ok(), next.message);
  CHECK(next.measurement.verdict == "faster");

  auto crash = device->remeasure(op, op.host_source, kernel_with(op, "STANDIN_CRASH"), quick());
  REQUIRE(crash.has_value());
  CHECK(crash->status == eval_status::runtime_error);
}

TEST_CASE("cann: a baseline that drifts raises the alarm on the drift board") {
  aopt::testing::temp_dir tmp;
  auto options = standin_options(tmp.path());
  options.protocol.baseline_every = 1;
  // A noiseless stand-in: with three samples of 2 % noise the two equal kernels were judged
  // "faster" about one run in thirty, and the drift ratio wandered with the draw.
  std::ofstream(tmp.path() / "noise") << "0";
  options.protocol.drift_threshold = 0.15;
  options.drift = std::make_shared<drift_board>();
  auto device = make(options);
  const op_package op = load_copy();
  REQUIRE(device->evaluate(op, op.host_source, op.kernel_source, quick()).ok());
  eval_result steady =
      device->evaluate(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=20"), quick());
  REQUIRE_MESSAGE(steady.ok(), steady.message);
  REQUIRE(options.drift->readings().size() == 1);
  CHECK_FALSE(options.drift->readings().front().alarm);
  std::ofstream(tmp.path() / "slowdown") << "1.25";  // the NPU is now 25 % slower
  eval_result slowed =
      device->evaluate(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=20"), quick());
  REQUIRE_MESSAGE(slowed.ok(), slowed.message);
  CHECK(slowed.measurement.verdict == "not_faster");  // both sides of the pairs slowed alike
  const auto readings = device->drift_readings();
  REQUIRE(readings.size() == 1);
  CHECK(readings.front().op == "copy_custom");
  CHECK(readings.front().device_id == "0");
  CHECK(readings.front().alarm);
  CHECK(readings.front().ratio == doctest::Approx(1.25).epsilon(0.001));
}

TEST_CASE("cann: two evaluations at once never share a directory") {
  aopt::testing::temp_dir tmp;
  aopt::testing::temp_dir rendezvous;
  auto options = standin_options(tmp.path());
  options.keep_scratch = true;
  options.device_ids = {"0", "1"};
  // Each build waits until the other has started: they provably overlap.
  options.commands.build =
      "sh " + standin + "/build.sh {op_dir} {work_dir} {kernel_name} " + rendezvous.path().string();
  auto device = make(options);
  const op_package op = load_copy();
  auto a = std::async(std::launch::async, [&] {
    return device->evaluate(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=10"), quick());
  });
  auto b = std::async(std::launch::async, [&] {
    return device->evaluate(op, op.host_source, kernel_with(op, "STANDIN_LATENCY=40"), quick());
  });
  eval_result ra = a.get();
  eval_result rb = b.get();
  REQUIRE_MESSAGE(ra.ok(), ra.message);
  REQUIRE_MESSAGE(rb.ok(), rb.message);
  std::set<std::string> work_dirs;
  for (const auto& e : fs::directory_iterator(rendezvous.path())) {
    std::ifstream in(e.path());
    std::string dir;
    std::getline(in, dir);
    work_dirs.insert(dir);
  }
  CHECK(work_dirs.size() == 2);
  for (const auto& dir : work_dirs) CHECK(fs::path(dir).parent_path() == tmp.path());
  // Whichever was measured first is the baseline; the other was compared with it in pairs.
  CHECK((ra.measurement.verdict.empty() != rb.measurement.verdict.empty()));
}
