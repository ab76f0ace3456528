// The precompiled headers are used: compiled with the flags the generated kernel and host units
// get, GCC reports each one valid ("!" under -H). A macro defined on the command line that the
// shim's headers test makes GCC drop the header silently, which tripled every candidate's compile
// time once; this test fails instead.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "base/subprocess.hpp"
#include "npu/sim/device/candidate_builder.hpp"
#include "support/temp_dir.hpp"

namespace {

// What GCC says of the precompiled header while compiling an empty unit with `flags`.
std::string pch_report(const aopt::npu::sim_toolchain& t, std::vector<std::string> flags) {
  aopt::testing::temp_dir dir;
  std::ofstream(dir.path() / "unit.cpp") << "int aopt_unit;\n";
  flags.erase(std::remove(flags.begin(), flags.end(), "-w"), flags.end());
  aopt::subprocess_options o;
  o.argv = {t.compiler};
  o.argv.insert(o.argv.end(), flags.begin(), flags.end());
  for (const char* a : {"-Winvalid-pch", "-H", "-c", "unit.cpp", "-o", "unit.o"}) {
    o.argv.push_back(a);
  }
  o.working_dir = dir.path().string();
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  CHECK_MESSAGE(r->succeeded(), r->stderr_text);
  return r->stderr_text;
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("the generated units' flags keep both precompiled headers valid") {
    const aopt::npu::sim_toolchain t = aopt::npu::default_sim_toolchain();
    const std::string kernel = pch_report(t, aopt::npu::kernel_unit_flags(t));
    CHECK_MESSAGE(
        kernel.find("! " + (t.pch_dir / "kernel_operator.h.gch").string()) != std::string::npos,
        kernel.substr(0, 2000));
    const std::string host = pch_report(t, aopt::npu::host_unit_flags(t));
    CHECK_MESSAGE(host.find("! " + (t.pch_dir / "host/aopt_sim/host_api.h.gch").string()) !=
                      std::string::npos,
                  host.substr(0, 2000));

    // The failure it guards against: a macro on the command line that the shim's headers test.
    std::vector<std::string> with_define = aopt::npu::host_unit_flags(t);
    with_define.insert(with_define.begin(), "-DAOPT_TILING_OP_NAME=\"x\"");
    CHECK(pch_report(t, with_define).find("not used because") != std::string::npos);
  }
}
