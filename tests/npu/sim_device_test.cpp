// End-to-end tests of the simulator device: real g++ compiles against the shim, real candidate
// processes in the sandbox, with the hand-written operators in tests/data/ops.
#include "npu/sim/device/sim_device.hpp"

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include <doctest/doctest.h>

#include "base/scratch_dir.hpp"
#include "base/subprocess.hpp"
#include "npu/hardware_profile.hpp"

namespace fs = std::filesystem;
using aopt::npu::eval_status;

namespace {

const fs::path sim_ops_dir = fs::path(AOPT_TEST_DATA_DIR) / "ops";

aopt::sim::hw_profile default_profile() {
  auto p = aopt::npu::find_hardware_profile("ascend910b4",
                                            fs::path(AOPT_SOURCE_DIR) / "config/hardware");
  REQUIRE_MESSAGE(p.ok(), p.error().to_string());
  return *p;
}

aopt::npu::op_package load_test_op(const std::string& name) {
  auto op = aopt::npu::load_op_package(sim_ops_dir / name);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

// A device with its own work dir (and so its own object cache), removed afterwards.
struct device_fixture {
  aopt::scratch_dir work = make_work_dir();
  aopt::npu::sim_device device;

  explicit device_fixture(aopt::npu::sim_device_options options = {})
      : device(default_profile(), with_work_dir(std::move(options))) {}

  static aopt::scratch_dir make_work_dir() {
    auto dir = aopt::scratch_dir::create(fs::temp_directory_path(), "aopt-sim-test-");
    REQUIRE(dir.ok());
    return std::move(dir).value();
  }
  aopt::npu::sim_device_options with_work_dir(aopt::npu::sim_device_options o) {
    o.work_dir = work.path();
    return o;
  }

  aopt::npu::eval_result evaluate(const aopt::npu::op_package& op,
                                  aopt::npu::eval_options options = {}) {
    return device.evaluate(op, op.host_source, op.kernel_source, options);
  }
  // Scratch directories left in the work dir (the object cache aside).
  size_t scratch_dirs_left() const {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(work.path()))
      n += e.path().filename() != "objcache" && e.path().filename() != "screen";
    return n;
  }
};

std::string describe(const aopt::npu::eval_result& r) {
  return nlohmann::json(r).dump(1);
}

std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  REQUIRE_MESSAGE(pos != std::string::npos, from);
  return text.replace(pos, from.size(), to);
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("a correct tiled add is ok with a positive simulated latency and a profile") {
    device_fixture f;
    auto r = f.evaluate(load_test_op("add_tiled"));
    REQUIRE_MESSAGE(r.status == eval_status::ok, describe(r));
    CHECK(r.latency_us > 0);
    CHECK(r.latency_is_simulated);
    CHECK(r.device == "sim");
    CHECK(r.device_profile == "ascend910b4");
    CHECK(f.device.profile_id() == "sim:ascend910b4");
    CHECK(r.profile.block_dim == 8);
    CHECK(r.profile.ub_high_water_bytes > 0);
    CHECK(r.profile.gm_read_bytes == 2 * 8 * 4096 * 2);
    CHECK(r.profile.gm_write_bytes == 8 * 4096 * 2);
    CHECK(r.roof.bound_us > 0);
    CHECK(r.roof.achieved_fraction > 0);
    CHECK(r.roof.achieved_fraction <= 1.0);
    CHECK(r.compile_seconds > 0);
    CHECK(r.run_seconds > 0);
    // The phases of a first evaluation: nothing was cached, every phase took time, and the
    // build's parts are within its wall time.
    for (const auto& [name, seconds] : aopt::npu::named_phases(r.phases)) {
      CHECK_MESSAGE(seconds > 0, name);
    }
    CHECK(r.phases.compile + r.phases.symbols + r.phases.link <= r.compile_seconds);
    CHECK(r.phases.run <= r.run_seconds);
    CHECK(f.scratch_dirs_left() == 0);
    MESSAGE("add_tiled: " << r.latency_us << " us simulated, compile " << r.compile_seconds
                          << " s, run " << r.run_seconds << " s");
  }

  TEST_CASE("the same candidate gets the same simulated latency every time") {
    device_fixture f;
    auto op = load_test_op("add_tiled");
    auto first = f.evaluate(op);
    auto second = f.evaluate(op);
    REQUIRE_MESSAGE(first.ok(), describe(first));
    CHECK(second.latency_us == first.latency_us);
  }

  // The candidate and probe processes map the input sets this process drew (input_store.hpp).
  TEST_CASE("a device draws each input set once for all the candidates and probes of an operator") {
    device_fixture f;
    auto op = load_test_op("add_tiled");
    aopt::npu::eval_options options;
    options.input_sets = 3;
    auto first = f.evaluate(op, options);
    REQUIRE_MESSAGE(first.ok(), describe(first));
    CHECK(f.device.input_sets_drawn() == 3);
    auto probed = f.device.probe_tiling(op, op.host_source);
    CHECK(probed.result == aopt::npu::tiling_probe_result::kind::ran);
    auto second = f.evaluate(op, options);
    REQUIRE_MESSAGE(second.ok(), describe(second));
    CHECK(second.latency_us == first.latency_us);
    CHECK(f.device.input_sets_drawn() == 3);
  }

  TEST_CASE("a kernel without synchronization between pipes is a data race") {
    device_fixture f;
    auto r = f.evaluate(load_test_op("add_race"));
    CHECK_MESSAGE(r.status == eval_status::precision_error, describe(r));
    CHECK(r.error_kind == "data_race");
    CHECK(r.message.find("DataCopy") != std::string::npos);
    CHECK(r.message.find("Add") != std::string::npos);
  }

  TEST_CASE("buffers beyond the Unified Buffer are a runtime error of kind ub_overflow") {
    device_fixture f;
    auto r = f.evaluate(load_test_op("add_ub_overflow"));
    CHECK_MESSAGE(r.status == eval_status::runtime_error, describe(r));
    CHECK(r.error_kind == "ub_overflow");
    CHECK(r.message.find("InitBuffer") != std::string::npos);
  }

  TEST_CASE("a kernel that never returns is killed at the timeout") {
    device_fixture f;
    aopt::npu::eval_options o;
    o.timeout_seconds = 1.5;
    auto started = std::chrono::steady_clock::now();
    auto r = f.evaluate(load_test_op("add_spin"), o);
    double waited =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    CHECK_MESSAGE(r.status == eval_status::timeout, describe(r));
    CHECK(r.run_seconds >= 1.5);
    CHECK(r.run_seconds < 5);
    // Nothing but the run waits on the kernel: the other phases are the build's and the
    // checker's (a loaded machine stretches those, not the timeout).
    CHECK(waited <
          r.compile_seconds + r.phases.inputs + r.phases.reference + r.phases.screen_wait + 6);
  }

  TEST_CASE("a null-pointer write is a runtime error naming the signal") {
    device_fixture f;
    auto r = f.evaluate(load_test_op("add_null_crash"));
    CHECK_MESSAGE(r.status == eval_status::runtime_error, describe(r));
    CHECK(r.error_kind == "signal");
    CHECK(r.message.find("SIGSEGV") != std::string::npos);
    // The kernel crashed, not the tiling function: it is not blamed.
    CHECK(r.message.find("tiling function") == std::string::npos);
  }

  TEST_CASE("a crash inside the tiling function names the function and the signal") {
    device_fixture f;
    const aopt::npu::op_package op = load_test_op("add_tiled");
    std::string host = op.host_source;
    const std::string read = "context->GetInputShape(0)";
    REQUIRE(host.find(read) != std::string::npos);
    // There is no input 5: the context answers nullptr, as CANN's does, and the read crashes.
    host.replace(host.find(read), read.size(), "context->GetInputShape(5)");
    auto r = f.device.evaluate(op, host, op.kernel_source, {});
    CHECK_MESSAGE(r.status == eval_status::runtime_error, describe(r));
    CHECK(r.error_kind == "signal");
    CHECK(r.message == "the tiling function TilingFunc was killed by SIGSEGV");
  }

  TEST_CASE("a kernel that does not compile is a compile error with the diagnostic") {
    device_fixture f;
    auto r = f.evaluate(load_test_op("add_compile_error"));
    REQUIRE_MESSAGE(r.status == eval_status::compile_error, describe(r));
    CHECK(r.error_kind == "compile");
    CHECK(r.message.find("op_kernel/add_compile_error.cpp:10") == 0);
    CHECK(r.message.find("tileLength") != std::string::npos);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics.size() <= 41);
    for (const auto& line : r.diagnostics) {
      CHECK_MESSAGE(line.find(f.work.path().string()) == std::string::npos, line);
    }
    CHECK(r.run_seconds == 0);
  }

  TEST_CASE("a compile error names an AscendC API the shim lacks and points at the table") {
    device_fixture f;
    auto op = load_test_op("add_tiled");
    std::string kernel = replace_once(op.kernel_source, "AscendC::Add(c, a, b, tileElems);",
                                      "AscendC::Scatter(c, a, b, 1);");
    auto r = f.device.evaluate(op, op.host_source, kernel, {});
    REQUIRE_MESSAGE(r.status == eval_status::compile_error, describe(r));
    CHECK(r.message.find("'Scatter' is an AscendC API the simulator does not provide yet") !=
          std::string::npos);
    CHECK(r.message.find("docs/ascendc-api-coverage.md") != std::string::npos);
  }

  TEST_CASE("an operator written like the CANN samples compiles unchanged and runs in waves") {
    device_fixture f;
    auto r = f.evaluate(load_test_op("clamp_power_custom"));
    REQUIRE_MESSAGE(r.status == eval_status::ok, describe(r));
    CHECK(r.profile.block_dim == 48);
    CHECK(r.profile.waves == 2);
    CHECK(r.profile.auto_sync_wait_us > 0);  // the GetValue after ClampMax waits for it
  }

  TEST_CASE("blocks exchanging data across SyncAll run in the sandboxed candidate and pass") {
    device_fixture f;
    auto r = f.evaluate(load_test_op("sync_all_custom"));
    REQUIRE_MESSAGE(r.status == eval_status::ok, describe(r));
    CHECK(r.profile.block_dim == 8);
  }

  TEST_CASE("a kernel entry that does not match op.json is refused before linking") {
    device_fixture f;
    auto op = load_test_op("add_tiled");
    std::string kernel = replace_once(op.kernel_source, "void add_tiled(", "void add_tiles(");
    auto r = f.device.evaluate(op, op.host_source, kernel, {});
    CHECK_MESSAGE(r.status == eval_status::compile_error, describe(r));
    // The link allow-list (symbol_check.hpp) names what it defines and what it may define.
    CHECK(r.error_kind == "forbidden");
    CHECK(r.message.find("`add_tiles`") != std::string::npos);
    CHECK(r.message.find("add_tiled") != std::string::npos);
  }

  TEST_CASE("a fork bomb in a kernel is a runtime error, not a hang") {
    // The static screen would refuse fork() before compiling; this is the sandbox's test.
    aopt::npu::sim_device_options unscreened;
    unscreened.static_screen = false;
    device_fixture f(unscreened);
    aopt::npu::eval_options o;
    o.timeout_seconds = 20;
    auto r = f.evaluate(load_test_op("add_fork_bomb"), o);
    CHECK_MESSAGE(r.status == eval_status::runtime_error, describe(r));
    CHECK(r.message.find("SIGABRT") != std::string::npos);
    CHECK(r.run_seconds < 10);
  }

  TEST_CASE(
      "a new tiling program recompiles only the host unit, a new kernel only the kernel "
      "unit") {
    device_fixture f;
    auto op = load_test_op("add_tiled");
    auto cold = f.evaluate(op);
    REQUIRE_MESSAGE(cold.ok(), describe(cold));
    auto after_cold = f.device.cache_stats();
    // Three units (kernel, host, and the reference in a build of its own) and two links (the
    // candidate, the reference): the cache holds linked executables too.
    CHECK(after_cold.misses == 5);
    CHECK(after_cold.hits == 0);

    // Stage I as the mutator steps: a new value of a tunable, the same K. Its lifted host unit
    // is the one built (tiling_constant_lift.hpp): kernel, host and executable are fetched. The
    // reference is not built again: its expected outputs are kept (expected_cache.hpp).
    std::string tiling = replace_once(op.host_source, "TILE_NUM = 8;", "TILE_NUM = 4;");
    auto stage1 = f.device.evaluate(op, tiling, op.kernel_source, {});
    REQUIRE_MESSAGE(stage1.ok(), describe(stage1));
    auto after_value = f.device.cache_stats();
    CHECK(after_value.misses - after_cold.misses == 0);
    CHECK(after_value.hits - after_cold.hits == 3);
    CHECK(stage1.latency_us != cold.latency_us);

    // Stage I with new code: the host unit is new, and so is the link of the new object; the
    // kernel's object is fetched.
    tiling = replace_once(tiling, "context->SetBlockDim(BLOCK_DIM);",
                          "context->SetBlockDim(BLOCK_DIM > 1 ? BLOCK_DIM : 1);");
    auto stage1_code = f.device.evaluate(op, tiling, op.kernel_source, {});
    REQUIRE_MESSAGE(stage1_code.ok(), describe(stage1_code));
    auto after_stage1 = f.device.cache_stats();
    CHECK(after_stage1.misses - after_value.misses == 2);
    CHECK(after_stage1.hits - after_value.hits == 1);
    CHECK(stage1_code.latency_us == stage1.latency_us);

    // Stage II: the same T, a new K.
    std::string kernel = op.kernel_source + "\n// a kernel edit\n";
    auto stage2 = f.device.evaluate(op, op.host_source, kernel, {});
    REQUIRE_MESSAGE(stage2.ok(), describe(stage2));
    auto after_stage2 = f.device.cache_stats();
    // The kernel unit compiles again, to the same object: the host's object and the linked
    // executable of those objects are fetched.
    CHECK(after_stage2.misses - after_stage1.misses == 1);
    CHECK(after_stage2.hits - after_stage1.hits == 2);
    CHECK(stage2.latency_us == cold.latency_us);

    MESSAGE("compile seconds: cold " << cold.compile_seconds << ", new T " << stage1.compile_seconds
                                     << ", new K " << stage2.compile_seconds);
  }

  TEST_CASE("evaluations on several threads at once are independent") {
    device_fixture f;
    auto good = load_test_op("add_tiled");
    auto bad = load_test_op("add_ub_overflow");
    aopt::npu::eval_result good_result, bad_result;
    std::thread t([&] { bad_result = f.evaluate(bad); });
    good_result = f.evaluate(good);
    t.join();
    CHECK_MESSAGE(good_result.ok(), describe(good_result));
    CHECK(bad_result.error_kind == "ub_overflow");
    CHECK(f.scratch_dirs_left() == 0);
  }

  TEST_CASE("keep_scratch leaves a failed evaluation's directory and names it") {
    aopt::npu::sim_device_options o;
    o.keep_scratch = true;
    device_fixture f(o);
    auto r = f.evaluate(load_test_op("add_null_crash"));
    REQUIRE(r.status == eval_status::runtime_error);
    REQUIRE_FALSE(r.diagnostics.empty());
    const std::string prefix = "scratch directory kept: ";
    REQUIRE(r.diagnostics.back().find(prefix) == 0);
    fs::path kept = r.diagnostics.back().substr(prefix.size());
    CHECK(fs::exists(kept / "op_kernel/add_null_crash.cpp"));
    // The spec came in a sealed memfd and the reference ran in a directory of its own: neither
    // is where the candidate could rewrite it (issue 30).
    CHECK_FALSE(fs::exists(kept / "spec.json"));
    CHECK_FALSE(fs::exists(kept / "reference"));
    CHECK(fs::exists(kept / "candidate"));
    CHECK(f.scratch_dirs_left() == 1);
  }

  TEST_CASE("a missing compiler is an infra error, not a candidate failure") {
    aopt::npu::sim_device_options o;
    o.toolchain.compiler = "/nonexistent/g++";
    device_fixture f(o);
    auto r = f.evaluate(load_test_op("add_tiled"));
    CHECK_MESSAGE(r.status == eval_status::infra_error, describe(r));
    CHECK(r.message.find("/nonexistent/g++") != std::string::npos);
  }

  TEST_CASE("the driver spec carries the operator, the profile and the options") {
    device_fixture f;
    auto op = load_test_op("add_tiled");
    aopt::npu::eval_options o;
    o.input_sets = 5;
    o.noise_seed = 9;
    const nlohmann::json spec = f.device.driver_spec(op, o);
    CHECK(spec.at("op").at("name") == "add_tiled");
    CHECK(spec.at("op").at("inputs").size() == 2);
    CHECK(spec.at("hw").at("name") == "ascend910b4");
    CHECK(spec.at("input_sets") == 5);
    CHECK(spec.at("noise_seed") == 9);
    CHECK(spec.at("detect_races") == true);
  }
}
