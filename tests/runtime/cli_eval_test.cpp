// Runs the real `aopt eval` binary as a user would.
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path ops_dir = fs::path(AOPT_TEST_DATA_DIR) / "ops";

aopt::subprocess_result run_aopt(std::vector<std::string> args) {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.limits.wall_seconds = 300;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("aopt eval --json prints exactly one JSON object with the result") {
    auto r = run_aopt({"eval", (ops_dir / "add_tiled").string(), "--json"});
    CHECK_MESSAGE(r.exited, r.describe());
    CHECK_MESSAGE(r.exit_code == 0, (r.stdout_text + r.stderr_text));
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.stdout_text));  // throws on trailing text
    REQUIRE(j.is_object());
    CHECK(j.at("status") == "ok");
    CHECK(j.at("latency_us").get<double>() > 0);
    CHECK(j.at("latency_is_simulated") == true);
    CHECK(j.at("profile").at("block_dim") == 8);
    CHECK(j.at("roofline").at("bound_us").get<double>() > 0);
    CHECK(j.at("diagnostics").is_array());
  }

  TEST_CASE("aopt eval prints the status, the simulated latency and the pipe profile") {
    auto r = run_aopt({"eval", (ops_dir / "add_tiled").string()});
    CHECK(r.exit_code == 0);
    for (const char* expected :
         {"status        ok", "(simulated", "block dim     8", "scalar", "vector", "MTE2", "MTE3",
          "UB high water", "GM bytes", "roofline"}) {
      CHECK_MESSAGE(r.stdout_text.find(expected) != std::string::npos, expected);
    }
  }

  TEST_CASE("aopt eval prints the cube's pipes for a matmul, and not for a vector kernel") {
    auto cube = run_aopt({"eval", (ops_dir / "matmul_transpose_accumulate").string()});
    CHECK_MESSAGE(cube.exit_code == 0, (cube.stdout_text + cube.stderr_text));
    for (const char* expected : {"  MTE1 ", "  cube (M) ", "  FIX "}) {
      CHECK_MESSAGE(cube.stdout_text.find(expected) != std::string::npos, expected);
    }
    auto vector = run_aopt({"eval", (ops_dir / "add_tiled").string()});
    CHECK(vector.exit_code == 0);
    CHECK(vector.stdout_text.find("  MTE1 ") == std::string::npos);
    CHECK(vector.stdout_text.find("  FIX ") == std::string::npos);
  }

  TEST_CASE("aopt eval --no-auto-sync judges a scalar read of vector data as a data race") {
    auto r =
        run_aopt({"eval", (ops_dir / "clamp_power_custom").string(), "--no-auto-sync", "--json"});
    CHECK(r.exit_code == 1);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.stdout_text));
    CHECK(j.at("error_kind") == "data_race");
    const std::string message = j.at("message");
    CHECK(message.find("ClampMax (V, #") != std::string::npos);
    CHECK(message.find("LocalTensor::GetValue (S, #") != std::string::npos);
    CHECK(message.find("SetFlag/WaitFlag<HardEvent::V_S>") != std::string::npos);
  }

  TEST_CASE("aopt eval exits 1 for a failing candidate and shows the diagnostic") {
    auto r = run_aopt({"eval", (ops_dir / "add_compile_error").string()});
    CHECK(r.exit_code == 1);
    CHECK(r.stdout_text.find("compile_error") != std::string::npos);
    CHECK(r.stdout_text.find("op_kernel/add_compile_error.cpp:10") != std::string::npos);
  }

  TEST_CASE("aopt eval exits 2 for a missing operator directory or a broken op.json") {
    auto missing = run_aopt({"eval", "/nonexistent/aopt-op", "--json"});
    CHECK(missing.exit_code == 2);
    // With --json the failure is the one JSON document on stdout too (issue 34 item 7).
    const nlohmann::json failure = nlohmann::json::parse(missing.stdout_text);
    CHECK(failure.at("ok") == false);
    CHECK(failure.dump().find("/nonexistent/aopt-op") != std::string::npos);
    CHECK(missing.stderr_text.find("/nonexistent/aopt-op") != std::string::npos);

    auto profile =
        run_aopt({"eval", (ops_dir / "add_tiled").string(), "--profile", "no_such_chip"});
    CHECK(profile.exit_code == 2);
    CHECK(profile.stderr_text.find("no_such_chip") != std::string::npos);
  }

  TEST_CASE("aopt eval --kernel evaluates another kernel with the package's tiling") {
    auto r = run_aopt({"eval", (ops_dir / "add_tiled").string(), "--json", "--kernel",
                       (ops_dir / "add_null_crash/op_kernel/add_null_crash.cpp").string()});
    // The crashing kernel's entry is named add_null_crash: its object defines a symbol other than
    // the entry add_tiled, which the link allow-list refuses before linking (issue 30).
    CHECK(r.exit_code == 1);
    auto j = nlohmann::json::parse(r.stdout_text);
    CHECK(j.at("status") == "compile_error");
    CHECK(j.at("error_kind") == "forbidden");
    CHECK(j.at("message").get<std::string>().find("add_null_crash") != std::string::npos);
  }

  TEST_CASE("aopt eval and aopt corpus list take the device from --config and --set") {
    aopt::testing::temp_dir dir;
    const fs::path config = dir.path() / "b2.toml";
    std::ofstream(config) << "[device]\nprofile = \"ascend910b2\"\n";
    const std::string op = (ops_dir / "add_tiled").string();

    auto from_file = run_aopt({"eval", op, "--config", config.string()});
    CHECK_MESSAGE(from_file.exit_code == 0, (from_file.stdout_text + from_file.stderr_text));
    CHECK(from_file.stdout_text.find("ascend910b2") != std::string::npos);

    // A flag is a shorthand for its key and wins over the file, as `aopt run`'s flags do.
    auto flag_wins =
        run_aopt({"eval", op, "--config", config.string(), "--profile", "ascend910b4"});
    CHECK(flag_wins.exit_code == 0);
    CHECK(flag_wins.stdout_text.find("ascend910b4") != std::string::npos);
    CHECK(flag_wins.stdout_text.find("ascend910b2") == std::string::npos);

    // The evaluation limits are the configuration's: a run limit no kernel can meet times out.
    auto limited = run_aopt({"eval", op, "--json", "--set", "device.timeout_s=0.001"});
    CHECK(limited.exit_code == 1);
    CHECK(nlohmann::json::parse(limited.stdout_text).at("status") == "timeout");

    auto bad = run_aopt({"eval", op, "--set", "device.input_sets=1"});
    CHECK(bad.exit_code == 2);
    CHECK_MESSAGE(bad.stderr_text.find("device.input_sets") != std::string::npos, bad.stderr_text);

    const fs::path corpus = dir.path() / "corpus";
    fs::create_directories(corpus);
    fs::copy(ops_dir / "add_tiled", corpus / "add_tiled", fs::copy_options::recursive);
    // --set takes one key: the folder after it is the positional argument, not a second key.
    auto listed =
        run_aopt({"corpus", "list", "--set", "device.profile=ascend910b2", corpus.string()});
    CHECK_MESSAGE(listed.exit_code == 0, (listed.stdout_text + listed.stderr_text));
    CHECK(listed.stdout_text.find("latency simulated on sim:ascend910b2") != std::string::npos);
    auto unlisted = run_aopt({"corpus", "list", corpus.string(), "--set", "device.kind=quantum"});
    CHECK(unlisted.exit_code == 2);
    CHECK(unlisted.stderr_text.find("device.kind") != std::string::npos);
  }

  TEST_CASE("aopt eval --config and aopt corpus list --set set the candidate's CPU-time limit") {
    aopt::testing::temp_dir dir;
    // A kernel that spins for ever: with the wall-clock limit further away, only the CPU-time limit
    // of the configuration can stop it, and the result names that limit.
    const fs::path config = dir.path() / "cpu.toml";
    std::ofstream(config) << "[device]\ncpu_seconds = 1\ntimeout_s = 30\n";
    auto evaluated =
        run_aopt({"eval", (ops_dir / "add_spin").string(), "--json", "--config", config.string()});
    CHECK(evaluated.exit_code == 1);
    const auto r = nlohmann::json::parse(evaluated.stdout_text);
    CHECK(r.at("status") == "timeout");
    CHECK(r.at("error_kind") == "cpu_time");
    CHECK(r.at("message").get<std::string>().find("more than 1 s of CPU time") !=
          std::string::npos);

    const fs::path corpus = dir.path() / "corpus";
    fs::create_directories(corpus);
    fs::copy(ops_dir / "add_spin", corpus / "add_spin", fs::copy_options::recursive);
    auto listed = run_aopt({"corpus", "list", corpus.string(), "--json", "--set",
                            "device.cpu_seconds=1", "--set", "device.timeout_s=30"});
    CHECK(listed.exit_code == 1);
    const auto list = nlohmann::json::parse(listed.stdout_text);
    REQUIRE(list.size() == 1);
    CHECK(list[0].at("status") == "timeout");
    CHECK(list[0].at("message").get<std::string>().find("more than 1 s of CPU time") !=
          std::string::npos);
  }
}
