// The precompiled headers are used: compiled with the flags the generated kernel and host units
// get, GCC reports each one valid ("!" under -H). A macro defined on the command line that the
// shim's headers test makes GCC drop the header silently, which tripled every candidate's compile
// time once; this test fails instead. And the headers every generated kernel unit includes add
// no standard header that the kernel's precompiled header lacks: parsing the reference's <map>
// there once took a third of each kernel compile. Nor does the host shim's inline code make every
// host unit instantiate standard templates for the shim's own types.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/subprocess.hpp"
#include "npu/sim/device/candidate_builder.hpp"
#include "support/temp_dir.hpp"

namespace {

// What GCC says of the headers (-H) while compiling `unit` with `flags`.
std::string pch_report(const aopt::npu::sim_toolchain& t, std::vector<std::string> flags,
                       const std::string& unit = "int aopt_unit;\n") {
  aopt::testing::temp_dir dir;
  std::ofstream(dir.path() / "unit.cpp") << unit;
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

// A libstdc++ internal header (bits/...) is opened only while a standard header is parsed for
// the first time, never when its include guard is already defined by the precompiled header.
// (c++config.h is the exception: the C wrappers such as <cstring> have no guard GCC can skip,
// and reopen it at almost no cost.)
bool parses_a_standard_header(const std::string& report) {
  std::istringstream lines(report);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("/bits/") != std::string::npos &&
        line.find("/bits/c++config.h") == std::string::npos) {
      return true;
    }
  }
  return false;
}

// The functions GCC instantiated and lowered while compiling `unit` with `flags`: one
// ";; Function <signature>" line each in its -fdump-tree-original dump.
std::vector<std::string> instantiated_functions(const aopt::npu::sim_toolchain& t,
                                                std::vector<std::string> flags,
                                                const std::string& unit = "int aopt_unit;\n") {
  aopt::testing::temp_dir dir;
  std::ofstream(dir.path() / "unit.cpp") << unit;
  aopt::subprocess_options o;
  o.argv = {t.compiler};
  o.argv.insert(o.argv.end(), flags.begin(), flags.end());
  for (const char* a : {"-fdump-tree-original=unit.original", "-c", "unit.cpp", "-o", "unit.o"}) {
    o.argv.push_back(a);
  }
  o.working_dir = dir.path().string();
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  REQUIRE_MESSAGE(r->succeeded(), r->stderr_text);
  std::ifstream dump(dir.path() / "unit.original");
  std::vector<std::string> functions;
  for (std::string line; std::getline(dump, line);) {
    if (line.rfind(";; Function ", 0) == 0) functions.push_back(line.substr(12));
  }
  return functions;
}

// Whether a function signature is a standard template's, instantiated for a type of the shim.
bool standard_template_of_shim_type(const std::string& signature) {
  if (signature.find("std::") == std::string::npos) return false;
  for (const char* ns : {"gert::", "ge::", "fe::", "ops::", "aopt_sim::", "platform_ascendc::",
                         "optiling::", "matmul_tiling::"}) {
    if (signature.find(ns) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("the generated units' flags keep both precompiled headers valid") {
    const aopt::npu::sim_toolchain t = aopt::npu::default_sim_toolchain();
    const std::string kernel = pch_report(t, aopt::npu::kernel_unit_flags(t));
    CHECK_MESSAGE(
        kernel.find("! " + (t.pch_dir / "kernel_operator.h.gch").string()) != std::string::npos,
        kernel.substr(0, 2000));
    // The host unit at the tiling flags' optimisation level, the reference at the candidate
    // flags': one host PCH serves both.
    for (const auto& flags : {aopt::npu::host_unit_flags(t), aopt::npu::reference_unit_flags(t)}) {
      const std::string host = pch_report(t, flags);
      CHECK_MESSAGE(host.find("! " + (t.pch_dir / "host/aopt_sim/host_api.h.gch").string()) !=
                        std::string::npos,
                    host.substr(0, 2000));
    }
    CHECK(aopt::npu::host_unit_flags(t) != aopt::npu::reference_unit_flags(t));

    // The failure it guards against: a macro on the command line that the shim's headers test.
    std::vector<std::string> with_define = aopt::npu::host_unit_flags(t);
    with_define.insert(with_define.begin(), "-DAOPT_TILING_OP_NAME=\"x\"");
    CHECK(pch_report(t, with_define).find("not used because") != std::string::npos);
  }

  TEST_CASE("a kernel unit's generated includes parse no standard header beyond the PCH") {
    const aopt::npu::sim_toolchain t = aopt::npu::default_sim_toolchain();
    const std::vector<std::string> flags = aopt::npu::kernel_unit_flags(t);
    const std::string generated = pch_report(
        t, flags,
        "#include \"register/tilingdata_base.h\"\n#include \"aopt_sim/driver_entry.h\"\n");
    CHECK_MESSAGE(!parses_a_standard_header(generated), generated.substr(0, 2000));
    // The check sees a standard header the PCH lacks.
    const std::string with_map = pch_report(t, flags, "#include <map>\n");
    CHECK_MESSAGE(parses_a_standard_header(with_map), with_map.substr(0, 2000));
  }

  TEST_CASE("an empty host unit instantiates next to no standard template for the shim's types") {
    // GCC instantiates at the end of each unit what the precompiled header's inline bodies name,
    // called or not: with the contexts' container members inline, an empty host unit
    // instantiated 325 such functions (of 1306); out of line, a handful of constexpr ones that
    // the class definitions themselves need.
    const aopt::npu::sim_toolchain t = aopt::npu::default_sim_toolchain();
    auto shim_instances = [&](const std::string& unit) {
      const std::vector<std::string> functions =
          instantiated_functions(t, aopt::npu::host_unit_flags(t), unit);
      REQUIRE(functions.size() > 100);  // the dump is read: the standard headers' own are there
      std::vector<std::string> found;
      for (const std::string& f : functions) {
        if (standard_template_of_shim_type(f)) found.push_back(f.substr(0, 200));
      }
      return found;
    };
    const std::vector<std::string> empty = shim_instances("int aopt_unit;\n");
    std::string listed;
    for (const std::string& f : empty) listed += f + "\n";
    CHECK_MESSAGE(empty.size() <= 16, listed);
    // The count sees such instances: an inline body (never called) that grows a vector of shapes
    // and a map of operators' shapes, as the contexts' members did.
    const std::vector<std::string> inline_containers = shim_instances(
        "inline void aopt_unused() {\n"
        "  std::vector<gert::Shape> shapes(3);\n  shapes.push_back(gert::Shape());\n"
        "  std::map<std::string, ge::Shape> named;\n  named[\"x\"] = ge::Shape();\n}\n");
    CHECK(inline_containers.size() > empty.size() + 16);
  }
}
