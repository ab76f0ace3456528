// Candidates that attack what they share with other evaluations and with aopt itself, through
// the real simulator device (real g++, real sandboxed processes): each attack is refused, the
// attacker ends non-ok with a reason naming what it tried, and the honest candidate evaluated
// after it is ok with the same simulated latency as before the attack.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "base/scratch_dir.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/device/process_environment.hpp"
#include "npu/sim/device/sim_device.hpp"

namespace fs = std::filesystem;
using aopt::npu::eval_result;
using aopt::npu::eval_status;

namespace {

// One device and work dir (so one shared object cache) for a whole test, and the operator.
struct attack_fixture {
  aopt::scratch_dir work = make_work_dir();
  aopt::npu::op_package op = load("add_tiled");
  aopt::npu::sim_device device;

  explicit attack_fixture(std::vector<std::string> redact = {})
      : device(profile(), options(std::move(redact))) {}

  static aopt::scratch_dir make_work_dir() {
    auto dir = aopt::scratch_dir::create(fs::temp_directory_path(), "aopt-adversarial-");
    REQUIRE(dir.ok());
    return std::move(dir).value();
  }
  static aopt::sim::hw_profile profile() {
    auto p = aopt::npu::find_hardware_profile("ascend910b4",
                                              fs::path(AOPT_SOURCE_DIR) / "config/hardware");
    REQUIRE_MESSAGE(p.ok(), p.error().to_string());
    return *p;
  }
  static aopt::npu::op_package load(const std::string& name) {
    auto op = aopt::npu::load_op_package(fs::path(AOPT_TEST_DATA_DIR) / "ops" / name);
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    return std::move(op).value();
  }
  aopt::npu::sim_device_options options(std::vector<std::string> redact) {
    aopt::npu::sim_device_options o;
    o.work_dir = work.path();
    o.redact = std::move(redact);
    // The static screen would refuse these sources before the sandbox is reached: these tests
    // prove the sandbox holds alone (the screen's own tests are checker_static_screen_test).
    o.static_screen = false;
    return o;
  }

  eval_result honest() { return device.evaluate(op, op.host_source, op.kernel_source, {}); }
  // The operator's kernel with `attack` added: code at file scope, which runs when the
  // candidate process starts (a static constructor) or is seen by the compiler.
  eval_result kernel_with(const std::string& attack) {
    return device.evaluate(op, op.host_source, attack + "\n" + op.kernel_source, {});
  }
  // Evaluates the honest candidate, then `attack`, then the honest one again: the attack must
  // be refused naming `what`, and the honest candidate keep its latency.
  void check_refused(const std::string& attack_source, const std::string& what) {
    const eval_result before = honest();
    REQUIRE_MESSAGE(before.ok(), nlohmann::json(before).dump(1));
    const eval_result attack = kernel_with(attack_source);
    CHECK(attack.status == eval_status::runtime_error);
    CHECK_MESSAGE(attack.error_kind == "sandbox_violation", nlohmann::json(attack).dump(1));
    CHECK_MESSAGE(attack.message.find(what) != std::string::npos, attack.message);
    const eval_result after = honest();
    REQUIRE_MESSAGE(after.ok(), nlohmann::json(after).dump(1));
    CHECK(after.latency_us == before.latency_us);
  }
  std::vector<fs::path> cache_entries() const {
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(work.path() / "objcache")) {
      if (e.path().extension() == ".o") entries.push_back(e.path());
    }
    return entries;
  }
};

std::string describe(const eval_result& r) {
  return nlohmann::json(r).dump(1);
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// A C string literal of `text`.
std::string c_string_literal(const std::string& text) {
  return nlohmann::json(text).dump();
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("sandbox: truncating or rewriting the shared compile cache is refused and named") {
    attack_fixture f;
    const eval_result before = f.honest();
    REQUIRE_MESSAGE(before.ok(), describe(before));
    const std::vector<fs::path> entries = f.cache_entries();
    // Three objects (kernel, host, reference), two linked executables (candidate, reference) and
    // the nm tables of the link's libraries (symbol_check.hpp).
    REQUIRE(entries.size() == 6);

    // The worst case: the attacker knows every entry's name (and its own scratch objects,
    // which were hard links to the entries before). A chmod of an entry first would be killed
    // by the seccomp allow-list (sandbox_allow_list_test.cpp).
    std::string targets;
    for (const auto& e : entries) targets += c_string_literal(e.string()) + ",";
    const eval_result attack = f.kernel_with(R"(
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
__attribute__((constructor)) static void aopt_attack() {
  const char* shared[] = {)" + targets + R"( 0};
  for (const char** p = shared; *p; ++p) {
    int fd = open(*p, O_WRONLY | O_TRUNC);
    if (fd >= 0) { write(fd, "evil", 4); close(fd); }
    truncate(*p, 0);
  }
  const char* own[] = {"obj/kernel.o", "obj/host.o", "obj/reference.o", 0};
  for (const char** p = own; *p; ++p) truncate(*p, 0);
})");
    CHECK(attack.status == eval_status::runtime_error);
    CHECK_MESSAGE(attack.error_kind == "sandbox_violation", describe(attack));
    CHECK(attack.message.find("shared compile cache") != std::string::npos);

    for (const auto& e : entries) CHECK(fs::file_size(e) > 1000);
    const eval_result after = f.honest();
    REQUIRE_MESSAGE(after.ok(), describe(after));
    CHECK(after.latency_us == before.latency_us);
    CHECK(f.device.cache_stats().damaged == 0);
  }

  TEST_CASE("sandbox: writing the parent's memory through /proc/<ppid>/mem is refused and named") {
    attack_fixture f;
    f.check_refused(
        R"(
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void aopt_attack() {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", (int)getppid());
  int fd = open(path, O_RDWR);
  if (fd >= 0) { pwrite(fd, "\0\0\0\0", 4, 0x400000); close(fd); }
})",
        "another process's memory or environment (/proc/" + std::to_string(::getpid()) + "/mem)");
  }

  TEST_CASE("sandbox: ptrace of the parent kills the candidate and is named") {
    attack_fixture f;
    f.check_refused(R"(
#include <sys/ptrace.h>
#include <unistd.h>
__attribute__((constructor)) static void aopt_attack() {
  ptrace(PTRACE_ATTACH, getppid(), 0, 0);
})",
                    "reaching another process (ptrace");
  }

  TEST_CASE("sandbox: a candidate sees an empty environment and cannot print a secret") {
    const std::string secret = "sk-adversarial-test-0123456789abcdef";
    ::setenv("AOPT_ADVERSARIAL_SECRET", secret.c_str(), 1);
    attack_fixture f({secret});
    // It prints its environment, then the secret as if it had found it, then fails so that
    // its stderr is shown.
    const eval_result attack = f.kernel_with(R"(
#include <stdio.h>
#include <stdlib.h>
extern char** environ;
__attribute__((constructor)) static void aopt_attack() {
  for (char** e = environ; *e; ++e) fprintf(stderr, "env: %s\n", *e);
  fprintf(stderr, "found: %s\n", )" + c_string_literal(secret) +
                                             R"();
  abort();
})");
    ::unsetenv("AOPT_ADVERSARIAL_SECRET");
    CHECK(attack.status == eval_status::runtime_error);
    const std::string shown = joined(attack.diagnostics) + attack.message;
    CHECK_MESSAGE(shown.find("env: PATH=/usr/bin:/bin") != std::string::npos, shown);
    CHECK(shown.find("AOPT_ADVERSARIAL_SECRET") == std::string::npos);
    CHECK(shown.find(secret) == std::string::npos);
    CHECK(shown.find("found: [redacted]") != std::string::npos);
    // Exactly what process_environment.hpp gives, and the values of its own tiling program's
    // lifted constants (tiling_constant_lift.hpp), nothing of aopt's.
    std::vector<std::string> env_lines;
    std::vector<std::string> lifted_lines;
    for (const auto& line : attack.diagnostics) {
      if (line.rfind("env: AOPT_SIM_LIFTED=", 0) == 0) {
        lifted_lines.push_back(line.substr(5));
      } else if (line.rfind("env: ", 0) == 0) {
        env_lines.push_back(line.substr(5));
      }
    }
    CHECK(env_lines == aopt::npu::sandboxed_process_environment());
    CHECK(lifted_lines.size() <= 1);
    for (const auto& line : lifted_lines) {
      CHECK_MESSAGE(line.find_first_not_of("0123456789,", std::strlen("AOPT_SIM_LIFTED=")) ==
                        std::string::npos,
                    line);
    }
  }

  TEST_CASE("sandbox: the compiler reads no file outside the shim and the package") {
    attack_fixture f;
    // Refused before compiling, naming the line.
    const eval_result direct = f.kernel_with("#include \"/etc/shadow\"");
    CHECK(direct.status == eval_status::compile_error);
    CHECK_MESSAGE(direct.error_kind == "forbidden", describe(direct));
    CHECK(direct.message.find("line 1: #include \"/etc/shadow\"") != std::string::npos);

    // Past the screen (a macro names the file), the sandboxed compiler cannot open it.
    const fs::path outside = f.work.path() / "outside-secret.h";
    std::ofstream(outside) << "the first line of a secret file\n";
    const eval_result hidden = f.kernel_with(
        "#define AOPT_FILE " + c_string_literal(outside.string()) + "\n#include AOPT_FILE");
    CHECK(hidden.status == eval_status::compile_error);
    const std::string shown = joined(hidden.diagnostics) + hidden.message;
    CHECK_MESSAGE(shown.find("Permission denied") != std::string::npos, shown);
    CHECK(shown.find("the first line of a secret file") == std::string::npos);
  }

  TEST_CASE("sandbox: including a FIFO fails at once instead of holding a slot") {
    attack_fixture f;
    const fs::path fifo = f.work.path() / "fifo.h";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const eval_result r = f.kernel_with("#define AOPT_FILE " + c_string_literal(fifo.string()) +
                                        "\n#include AOPT_FILE");
    CHECK_MESSAGE(r.status == eval_status::compile_error, describe(r));
    CHECK(r.compile_seconds < 60);  // the compile timeout is 120 s
  }
}
