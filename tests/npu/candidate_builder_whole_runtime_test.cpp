// The runtime cannot be interposed at link time (issue 30 item 3): every candidate-side link takes
// the simulator's runtime as a whole archive (simulator_link_libraries), so a candidate object
// defining one of its names is a duplicate definition. As an ordinary archive the linker would
// take the candidate's definition and leave the runtime's member out, as the tiling
// program did with `extern "C"` definitions of the runtime's mangled names: the symbol check
// refuses such an object by name first (checker_link_test.cpp), and this is the layer beneath it.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/subprocess.hpp"
#include "npu/sim/device/candidate_builder.hpp"
#include "support/temp_dir.hpp"

namespace candidate_builder_whole_runtime_test {

// The runtime's vector cast, which the shim's Cast calls and which no other member of the runtime
// defines: a candidate defining it under its mangled name, as the tiling program defined
// the runtime's names, would cast without a trace.
constexpr const char* vec_cast_symbol =
    "_ZN8aopt_sim2rt8vec_castENS0_5dtypeES1_N7AscendC9RoundModeERKNS0_9local_refES6_RKNS0_9vec_"
    "shapeEPKcNS0_9call_siteE";

// The two entries the driver calls, and with `interpose` the runtime's vector cast.
std::string candidate_unit(bool interpose) {
  std::string unit =
      "#include <cstdint>\n"
      "namespace gert { class TilingContext; }\n"
      "uint32_t aopt_tiling_entry(gert::TilingContext*) { return 0; }\n"
      "void aopt_kernel_entry(uint8_t* const*) {}\n";
  if (interpose) unit += std::string("extern \"C\" void ") + vec_cast_symbol + "() {}\n";
  return unit;
}

// The linker's result for the candidate's object, the driver's main library and `libraries`.
aopt::subprocess_result link_candidate(const aopt::npu::sim_toolchain& t, bool interpose,
                                       const std::vector<std::string>& libraries) {
  aopt::testing::temp_dir dir;
  std::ofstream(dir.path() / "candidate.cpp") << candidate_unit(interpose);
  aopt::subprocess_options compile;
  compile.argv = {t.compiler};
  compile.argv.insert(compile.argv.end(), t.candidate_flags.begin(), t.candidate_flags.end());
  for (const char* a : {"-c", "candidate.cpp", "-o", "candidate.o"}) compile.argv.push_back(a);
  compile.working_dir = dir.path().string();
  auto compiled = aopt::run_subprocess(compile);
  REQUIRE_MESSAGE(compiled.ok(), compiled.error().to_string());
  REQUIRE_MESSAGE(compiled->succeeded(), compiled->stderr_text);

  aopt::subprocess_options link;
  link.argv = {t.compiler};
  link.argv.insert(link.argv.end(), t.link_flags.begin(), t.link_flags.end());
  for (const char* a : {"-o", "candidate", "candidate.o"}) link.argv.push_back(a);
  link.argv.push_back((t.lib_dir / "libaopt_simdriver.a").string());
  link.argv.insert(link.argv.end(), libraries.begin(), libraries.end());
  link.argv.push_back("-pthread");
  link.working_dir = dir.path().string();
  auto linked = aopt::run_subprocess(link);
  REQUIRE_MESSAGE(linked.ok(), linked.error().to_string());
  return std::move(linked).value();
}

}  // namespace candidate_builder_whole_runtime_test

using namespace candidate_builder_whole_runtime_test;

TEST_SUITE("npu") {
  TEST_CASE("a candidate object defining a runtime name does not link against the whole runtime") {
    const aopt::npu::sim_toolchain t = aopt::npu::default_sim_toolchain();
    const std::vector<std::string> whole = aopt::npu::simulator_link_libraries(
        t.lib_dir / "libaopt_simrt.a", t.lib_dir / "libaopt_protocol.a");
    // The honest object links.
    const aopt::subprocess_result honest = link_candidate(t, false, whole);
    CHECK_MESSAGE(honest.succeeded(), honest.stderr_text);
    // The interposer is a duplicate definition of the runtime's vector cast.
    const aopt::subprocess_result interposed = link_candidate(t, true, whole);
    CHECK_FALSE(interposed.succeeded());
    const std::string said = interposed.stderr_text + interposed.stdout_text;
    CHECK_MESSAGE((said.find("duplicate symbol") != std::string::npos ||
                   said.find("multiple definition") != std::string::npos),
                  said);
    CHECK_MESSAGE(said.find("vec_cast") != std::string::npos, said);
    // What the whole archive prevents: with the runtime as an ordinary archive the same object
    // links, and its definition would serve every Cast of the kernel in place of the runtime's.
    const aopt::subprocess_result ordinary = link_candidate(
        t, true,
        {(t.lib_dir / "libaopt_simrt.a").string(), (t.lib_dir / "libaopt_protocol.a").string()});
    CHECK_MESSAGE(ordinary.succeeded(), ordinary.stderr_text);
  }
}
