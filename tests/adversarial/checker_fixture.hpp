// Shared by the checker's adversarial tests: the honest test operator add_tiled, two simulator
// devices over one work dir and object cache (one with the static screen, one without it, to
// show the trusted checker holds alone), and the honest candidate's true latency.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/scratch_dir.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/shared_object_cache.hpp"

namespace aopt::testing {

// What a kernel that touches GM outside the traced API fails with: the runtime keeps the GM out of
// its reach while its cores run (npu/sim/runtime/gm_guard.hpp), so such an access is refused where
// it happens, before any later check of the trace or the outputs sees it.
inline constexpr const char* raw_gm_refusal = "touched simulated GM outside the traced tensor API";

inline sim::hw_profile checker_profile() {
  auto p = npu::find_hardware_profile("ascend910b4",
                                      std::filesystem::path(AOPT_SOURCE_DIR) / "config/hardware");
  REQUIRE_MESSAGE(p.ok(), p.error().to_string());
  return *p;
}

inline npu::sim_device_options checker_options(const std::filesystem::path& work, bool screen) {
  npu::sim_device_options o;
  o.work_dir = work;
  // The test run's shared object cache: the honest objects compile once.
  o.cache_dir = shared_object_cache();
  o.static_screen = screen;
  return o;
}

struct checker_fixture {
  scratch_dir work = make_work_dir();
  npu::op_package op = load_op();
  npu::sim_device screened{checker_profile(), checker_options(work.path(), true)};
  npu::sim_device unscreened{checker_profile(), checker_options(work.path(), false)};
  double honest_latency = 0;

  checker_fixture() {
    const auto r = unscreened.evaluate(op, op.host_source, op.kernel_source, {});
    REQUIRE_MESSAGE(r.ok(), describe(r));
    honest_latency = r.latency_us;
  }

  static scratch_dir make_work_dir() {
    auto dir = scratch_dir::create(std::filesystem::temp_directory_path(), "aopt-checker-test-");
    REQUIRE(dir.ok());
    return std::move(dir).value();
  }
  static npu::op_package load_op() {
    auto op = npu::load_op_package(std::filesystem::path(AOPT_TEST_DATA_DIR) / "ops/add_tiled");
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    return std::move(op).value();
  }
  static std::string describe(const npu::eval_result& r) { return nlohmann::json(r).dump(1); }
  // Whether one of r's diagnostics contains `text`.
  static bool has_diagnostic(const npu::eval_result& r, const std::string& text) {
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(),
                       [&](const std::string& d) { return d.find(text) != std::string::npos; });
  }
  static std::string replace(std::string text, const std::string& from, const std::string& to) {
    const auto pos = text.find(from);
    REQUIRE_MESSAGE(pos != std::string::npos, from);
    return text.replace(pos, from.size(), to);
  }

  // The honest candidate after an exploit: still ok, with the same simulated latency.
  void check_honest_still_ok() {
    const auto r = unscreened.evaluate(op, op.host_source, op.kernel_source, {});
    CHECK_MESSAGE(r.ok(), describe(r));
    CHECK(r.latency_us == honest_latency);
  }
};

}  // namespace aopt::testing
