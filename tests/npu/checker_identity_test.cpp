// The simulator's checker identity (npu/sim/device/checker_identity.hpp) changes with every file
// its verdicts depend on and with the profile's constants, and with nothing else.
#include "npu/sim/device/checker_identity.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("the checker identity follows the judge, the runtime, the shim and the profile") {
  aopt::testing::temp_dir dir;
  aopt::npu::sim_toolchain t;
  t.judge = dir.path() / "build/aopt_sim_judge";
  t.lib_dir = dir.path() / "build";
  t.include_dir = dir.path() / "include";
  write_file(t.judge, "judge v1");
  write_file(t.lib_dir / "libaopt_simrt.a", "runtime v1");
  write_file(t.lib_dir / "pch/kernel_operator.h.gch", "pch v1");
  write_file(t.include_dir / "kernel_operator.h", "shim v1");
  write_file(t.include_dir / "host/aopt_sim/host_api.h", "host v1");
  const aopt::sim::hw_profile profile;
  const std::string id = aopt::npu::checker_identity(t, profile);
  CHECK(id.size() == 16);
  CHECK(aopt::npu::checker_identity(t, profile) == id);

  // A build folder's other contents (objects, precompiled headers made from the shim) do not
  // enter: they follow from what does.
  write_file(t.lib_dir / "pch/kernel_operator.h.gch", "pch v2");
  write_file(t.lib_dir / "build.ninja", "rules");
  CHECK(aopt::npu::checker_identity(t, profile) == id);

  write_file(t.include_dir / "host/aopt_sim/host_api.h", "host v2");
  const std::string shim_changed = aopt::npu::checker_identity(t, profile);
  CHECK(shim_changed != id);
  write_file(t.lib_dir / "libaopt_simrt.a", "runtime v2");
  const std::string runtime_changed = aopt::npu::checker_identity(t, profile);
  CHECK(runtime_changed != shim_changed);
  write_file(t.judge, "judge v2");
  const std::string judge_changed = aopt::npu::checker_identity(t, profile);
  CHECK(judge_changed != runtime_changed);

  aopt::sim::hw_profile calibrated = profile;
  calibrated.clock_ghz = 1.6;
  CHECK(aopt::npu::checker_identity(t, calibrated) != judge_changed);
}
