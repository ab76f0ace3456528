// Packages as teams lay them out (issue 34 items 2 and 3): any number of files under op_host/
// and op_kernel/ including each other by relative, climbing and package-root paths, confined to
// the package; the host shim's CANN forms; outputs with initial contents.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/scratch_dir.hpp"
#include "npu/evaluate_on_simulator.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/package_include.hpp"
#include "npu/sim/device/candidate_builder.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "npu/sim/device/static_screen.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path ops_dir = fs::path(AOPT_TEST_DATA_DIR) / "ops";

aopt::npu::op_package load_layout(const fs::path& dir) {
  auto op = aopt::npu::load_op_package(dir);
  REQUIRE_MESSAGE(op.ok(), op.error().to_string());
  return std::move(op).value();
}

using aopt::testing::evaluate_on_simulator;

void copy_package(const fs::path& from, const fs::path& to) {
  fs::copy(from, to, fs::copy_options::recursive);
}

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("a package's other source files load by their paths, the named ones apart") {
    const auto op = load_layout(ops_dir / "team_layout_add");
    CHECK(op.other_files.size() == 3);
    CHECK(op.other_files.count("op_host/team_layout_add_consts.h") == 1);
    CHECK(op.other_files.count("op_host/tiling_helpers/tile_math.h") == 1);
    CHECK(op.other_files.count("op_kernel/team_layout_add_block.h") == 1);
    CHECK(op.other_files.count("op_kernel/team_layout_add.cpp") == 0);  // the named kernel
    CHECK(!aopt::npu::other_files_digest(op).empty());
    // A four-file package has none, and so keeps its cache keys.
    const auto plain = load_layout(ops_dir / "add_tiled");
    CHECK(plain.other_files.empty());
    CHECK(aopt::npu::other_files_digest(plain).empty());
  }

  TEST_CASE("a file none of the operator's files includes is not the operator's") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    copy_package(ops_dir / "team_layout_add", pkg);
    const auto before = load_layout(pkg);
    // What a team's operator folder holds beside the operator: a framework binding and a test,
    // neither of which a kernel may include.
    fs::create_directories(pkg / "csrc");
    std::ofstream(pkg / "csrc" / "binding.cpp") << "#include <torch/extension.h>\n";
    fs::create_directories(pkg / "tests");
    std::ofstream(pkg / "tests" / "test_add.cpp")
        << "#include <gtest/gtest.h>\n#include <fstream>\n";
    const auto after = load_layout(pkg);
    CHECK(after.other_files == before.other_files);
    CHECK(aopt::npu::other_files_digest(after) == aopt::npu::other_files_digest(before));
    const auto ok = evaluate_on_simulator(after);
    CHECK_MESSAGE(ok.ok(), nlohmann::json(ok).dump(1));
    // A helper the kernel does include is screened as before.
    std::ofstream(pkg / "op_kernel" / "team_layout_add_block.h", std::ios::app)
        << "#include <fstream>\n";
    const auto refused = evaluate_on_simulator(load_layout(pkg));
    CHECK(refused.status == aopt::npu::eval_status::compile_error);
    CHECK(refused.error_kind == "forbidden");
    CHECK(refused.message.find("team_layout_add_block.h") != std::string::npos);
  }

  TEST_CASE("the files a package's roots reach through their includes") {
    using aopt::npu::reached_package_files;
    const std::map<std::string, std::string> files = {
        {"op_kernel/k.cpp", "#include \"k.h\"\n#include <common/util.h>\n"},
        {"op_kernel/k.h", "#if 0\n#include \"../op_host/old.h\"\n#endif\n"},
        {"op_host/old.h", ""},
        {"common/util.h", ""},
        {"op_kernel/other_op.cpp", "#include \"k.h\"\n"},
        {"csrc/binding.cpp", "#include <torch/extension.h>\n"}};
    const auto reached = reached_package_files(files, {"op_kernel/k.cpp"});
    REQUIRE(reached);
    CHECK(*reached == std::set<std::string>{"op_kernel/k.cpp", "op_kernel/k.h", "op_host/old.h",
                                            "common/util.h"});
    // A computed include could name any file: all of them may be reached.
    auto computed = files;
    computed["op_kernel/k.h"] = "#define HELPER \"x.h\"\n#include HELPER\n";
    CHECK_FALSE(reached_package_files(computed, {"op_kernel/k.cpp"}));
  }

  TEST_CASE("a linked helper header or folder in a package is refused") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    copy_package(ops_dir / "team_layout_add", pkg);
    fs::create_symlink("/etc/hostname", pkg / "op_kernel" / "stolen.h");
    auto op = aopt::npu::load_op_package(pkg);
    REQUIRE_FALSE(op.ok());
    CHECK(op.error().message().find("stolen.h") != std::string::npos);
    fs::remove(pkg / "op_kernel" / "stolen.h");
    fs::create_directory_symlink("/etc", pkg / "op_host" / "common");
    op = aopt::npu::load_op_package(pkg);
    REQUIRE_FALSE(op.ok());
    CHECK(op.error().message().find("common") != std::string::npos);
    fs::remove(pkg / "op_host" / "common");
    CHECK(aopt::npu::load_op_package(pkg).ok());
  }

  TEST_CASE("a quoted include resolves to a package file as the compiler searches for it") {
    using aopt::npu::resolve_package_include;
    const std::set<std::string> files = {"op_host/k_tiling.h", "op_host/util/math.h",
                                         "op_kernel/k.cpp", "op_kernel/k.h"};
    CHECK(resolve_package_include("op_kernel/k.cpp", "k.h", files) == "op_kernel/k.h");
    CHECK(resolve_package_include("op_kernel/k.cpp", "../op_host/k_tiling.h", files) ==
          "op_host/k_tiling.h");
    CHECK(resolve_package_include("op_kernel/k.cpp", "op_host/util/math.h", files) ==
          "op_host/util/math.h");
    CHECK(resolve_package_include("op_kernel/k.cpp", "k_tiling.h", files) ==
          "op_host/k_tiling.h");  // op_host/ is on the quote path
    CHECK(resolve_package_include("op_host/util/math.h", "../k_tiling.h", files) ==
          "op_host/k_tiling.h");
    // Out of the package, absolute, or nowhere.
    CHECK_FALSE(resolve_package_include("op_kernel/k.cpp", "../../op_host/k_tiling.h", files));
    CHECK_FALSE(resolve_package_include("op_kernel/k.cpp", "/etc/passwd", files));
    CHECK_FALSE(resolve_package_include("op_kernel/k.cpp", "csrc/utils.h", files));
  }

  TEST_CASE("a climbing include is the package's own only while it reaches a package file") {
    using aopt::npu::find_escaping_include;
    const std::set<std::string> files = {"op_host/k_tiling.h", "op_kernel/k.cpp"};
    CHECK(find_escaping_include("#include \"../op_host/k_tiling.h\"\n", "op_kernel/k.cpp", files)
              .empty());
    CHECK(find_escaping_include("#include \"../../op_host/k_tiling.h\"\n", "op_kernel/k.cpp",
                                files) == "line 1: #include \"../../op_host/k_tiling.h\"");
    CHECK(find_escaping_include("#include \"../op_host/missing.h\"\n", "op_kernel/k.cpp", files) ==
          "line 1: #include \"../op_host/missing.h\"");
    CHECK(find_escaping_include("#include <../op_host/k_tiling.h>\n", "op_kernel/k.cpp", files) ==
          "line 1: #include <../op_host/k_tiling.h>");
  }

  TEST_CASE("the screen allows an include of a package file and names a missing helper") {
    aopt::npu::screen_includes includes;
    includes.own_header = "op_host/k_tiling.h";
    includes.package_files = {"op_host/k_tiling.h", "op_kernel/k.cpp", "op_kernel/k.h",
                              "op_host/common.h"};
    includes.shim_headers = {"kernel_operator.h", "tiling/tiling_api.h"};
    CHECK_FALSE(aopt::npu::screen_source("op_kernel/k.cpp",
                                         "#include \"k.h\"\n#include \"../op_host/common.h\"\n"
                                         "#include \"op_host/common.h\"\n",
                                         includes));
    auto missing =
        aopt::npu::screen_source("op_host/h.cpp", "#include \"csrc/utils.h\"\n", includes);
    REQUIRE(missing);
    CHECK(missing->message().find("neither in the package nor a CANN header") != std::string::npos);
    // What the screen refused before it still refuses.
    CHECK(aopt::npu::screen_source("op_kernel/k.cpp", "#include <fstream>\n", includes));
    CHECK(aopt::npu::screen_source("op_kernel/k.cpp", "#include \"aopt/reference.h\"\n", includes));
    // A digraph spells the same include (what the code calls is the AST screen's to judge).
    CHECK(aopt::npu::screen_source("op_kernel/k.cpp", "%:include <fstream>\n", includes));
  }

  TEST_CASE("a team's package evaluates ok with its sources as they are") {
    // Split kernel, helper headers by relative, climbing and root paths, a templated tiling
    // function in its own namespace found from the OpDef, END_TILING_DATA_DEF without ';', two
    // tiling classes in one header, a bool attribute read as uint32_t, an output that starts at
    // zeros, a valid workspace pointer without a workspace request.
    const auto op = load_layout(ops_dir / "team_layout_add");
    const auto r = evaluate_on_simulator(op);
    CHECK_MESSAGE(r.ok(), nlohmann::json(r).dump(1));
    // Its output starts at zeros, so accumulating into it is no warning.
    for (const std::string& w : r.warnings)
      CHECK(w.find("atomic accumulation") == std::string::npos);
  }

  TEST_CASE("without its initial zeros the accumulating output mismatches") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    copy_package(ops_dir / "team_layout_add", pkg);
    nlohmann::json spec = nlohmann::json::parse(std::ifstream(pkg / "op.json"));
    // Poison said explicitly (without an init, an accumulated output is taken as zero-filled:
    // tests/npu/accumulated_outputs_test.cpp).
    spec["outputs"][0]["init"] = "none";
    std::ofstream(pkg / "op.json") << spec.dump(1);
    const auto r = evaluate_on_simulator(load_layout(pkg));
    CHECK_FALSE(r.ok());
    CHECK(r.status == aopt::npu::eval_status::precision_error);
    // The reason names the likely cause: op.json, not the kernel.
    CHECK(r.message.find("likely cause: ") != std::string::npos);
    CHECK(r.message.find("atomic accumulation into uninitialised output 'z'") != std::string::npos);
    CHECK(r.message.find("\"init\": \"zeros\"") != std::string::npos);
  }

  TEST_CASE("an include of a helper the package does not carry is a clear compile error") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    copy_package(ops_dir / "team_layout_add", pkg);
    fs::remove(pkg / "op_kernel" / "team_layout_add_block.h");
    const auto r = evaluate_on_simulator(load_layout(pkg));
    CHECK(r.status == aopt::npu::eval_status::compile_error);
    CHECK(r.error_kind == "forbidden");
    CHECK(r.message.find("\"team_layout_add_block.h\"") != std::string::npos);
    CHECK(r.message.find("neither in the package nor a CANN header") != std::string::npos);
  }
}
