// When the machine, not the candidate, is at fault (no descriptors left, a full disk), the
// simulator device says infra_error, which is retried and never cached, instead of blaming the
// candidate with a compile or runtime error.
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "npu/hardware_profile.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/descriptor_exhaustion.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using aopt::npu::eval_result;
using aopt::npu::eval_status;

namespace {

aopt::npu::sim_device make_device(const fs::path& work) {
  auto profile = aopt::npu::find_hardware_profile("ascend910b4",
                                                  fs::path(AOPT_SOURCE_DIR) / "config/hardware");
  REQUIRE_MESSAGE(profile.ok(), profile.error().to_string());
  aopt::npu::sim_device_options o;
  o.work_dir = work;
  return aopt::npu::sim_device(*profile, o);
}

aopt::npu::op_package add_tiled() {
  auto op = aopt::npu::load_op_package(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "add_tiled");
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

eval_result evaluate(aopt::npu::sim_device& device, const aopt::npu::op_package& op) {
  return device.evaluate(op, op.host_source, op.kernel_source, {});
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("out of descriptors, an evaluation is infra_error; with descriptors again, ok") {
    aopt::testing::temp_dir dir;
    auto device = make_device(dir.path() / "work");
    const auto op = add_tiled();
    for (int spare : {0, 4}) {
      CAPTURE(spare);
      eval_result starved;
      {
        aopt::testing::descriptor_exhaustion limit(spare);
        starved = evaluate(device, op);
      }
      CHECK_MESSAGE(starved.status == eval_status::infra_error, nlohmann::json(starved).dump());
      CHECK(aopt::npu::is_transient_failure(starved));
    }
    eval_result r = evaluate(device, op);
    CHECK_MESSAGE(r.ok(), nlohmann::json(r).dump());
  }

  TEST_CASE("on a full disk an evaluation is infra_error, not the candidate's compile_error") {
    if (::geteuid() != 0) {
      MESSAGE("skipped: mounting a small file system needs root");
      return;
    }
    aopt::testing::temp_dir dir;
    const fs::path work = dir.path() / "work";
    fs::create_directory(work);
    // In a child with its own mount namespace: a 1 MiB tmpfs holds the sources, not the objects.
    int report[2];
    REQUIRE(::pipe(report) == 0);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      int code = 10;
      if (::unshare(CLONE_NEWNS) != 0 ||
          ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
          ::mount("tmpfs", work.c_str(), "tmpfs", 0, "size=1m") != 0) {
        code = 11;
      } else {
        auto device = make_device(work);
        eval_result r = evaluate(device, add_tiled());
        std::string text = nlohmann::json(r).dump();
        if (::write(report[1], text.data(), text.size()) < 0) code = 12;
        code = r.status == eval_status::infra_error ? 0 : 1;
      }
      ::_exit(code);
    }
    ::close(report[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(report[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    ::close(report[0]);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    REQUIRE_MESSAGE(WEXITSTATUS(status) != 11, "cannot mount a tmpfs here");
    CHECK_MESSAGE(WEXITSTATUS(status) == 0, text);
  }
}
