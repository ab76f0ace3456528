// `aopt init`'s reading of an operator's OpDef from its own host sources (issue 34): compiled
// with the shim and run in the sandbox, then turned into op.json's skeleton.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "npu/op_package.hpp"
#include "npu/protocol/op_spec.hpp"
#include "npu/sim/device/compile_cache.hpp"
#include "npu/sim/device/opdef_reader.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

TEST_SUITE("npu") {
  TEST_CASE("aopt init reads the OpDef and writes a skeleton that parses as op.json") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "team_layout_add", pkg,
             fs::copy_options::recursive);
    fs::remove(pkg / "op.json");
    auto defs = aopt::npu::read_op_defs(pkg, aopt::npu::default_sim_toolchain(), dir.path());
    REQUIRE_MESSAGE(defs.ok(), defs.error().message());
    REQUIRE(defs->size() == 1);
    const auto& def = (*defs)[0];
    CHECK(def["op_type"] == "TeamLayoutAdd");
    REQUIRE(def["inputs"].size() == 2);
    CHECK(def["inputs"][1]["name"] == "y");
    CHECK(def["inputs"][1]["dtypes"][0] == "float32");
    CHECK(def["outputs"][0]["name"] == "z");
    CHECK(def["attrs"][0]["name"] == "accumulate");
    CHECK(def["attrs"][0]["type"] == "bool");
    CHECK(def["attrs"][0]["value"] == true);

    // What was read is kept under the key of the sources, and read again from there.
    auto key = aopt::npu::op_defs_cache_key(pkg, aopt::npu::default_sim_toolchain());
    REQUIRE(key.ok());
    aopt::npu::compile_cache cache(dir.path() / "opdef-cache");
    CHECK(cache.fetch(*key, dir.path() / "cached.json"));
    CHECK(nlohmann::json::parse(std::ifstream(dir.path() / "cached.json")) == *defs);
    auto again = aopt::npu::read_op_defs(pkg, aopt::npu::default_sim_toolchain(), dir.path());
    REQUIRE(again.ok());
    CHECK(*again == *defs);

    auto skeleton = aopt::npu::op_json_skeleton(pkg, *defs);
    REQUIRE_MESSAGE(skeleton.ok(), skeleton.error().message());
    CHECK((*skeleton)["name"] == "team_layout_add");
    CHECK((*skeleton)["files"]["kernel"] == "op_kernel/team_layout_add.cpp");
    CHECK((*skeleton)["files"]["tiling_header"] == "op_host/team_layout_add_tiling.h");
    CHECK_FALSE(skeleton->contains("tiling_func"));  // the registration names it
    auto spec = aopt::npu::parse_op_spec(*skeleton);
    CHECK_MESSAGE(spec.ok(), spec.error().message());
  }

  TEST_CASE("aopt init writes a ref output, and finds files named otherwise by what they hold") {
    // tests/data/ops/hypot laid out as a team might: its tiling header not named *_tiling.h, and
    // another operator's tiling header, host and kernel sorted before its own.
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "hypot";
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "hypot", pkg, fs::copy_options::recursive);
    fs::remove(pkg / "op.json");
    fs::rename(pkg / "op_host" / "hypot_tiling.h", pkg / "op_host" / "hypot_defs.h");
    fs::rename(pkg / "op_host" / "hypot.cpp", pkg / "op_host" / "impl.cpp");
    fs::rename(pkg / "op_kernel" / "hypot.cpp", pkg / "op_kernel" / "impl.cpp");
    {
      std::ifstream in(pkg / "op_host" / "impl.cpp");
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      text.replace(text.find("hypot_tiling.h"), 14, "hypot_defs.h");
      std::ofstream(pkg / "op_host" / "impl.cpp") << text;
    }
    std::ofstream(pkg / "op_host" / "a_helpers.h") << "#pragma once\n";
    // Another operator's tiling header, named as CANN's layout names one: the header that
    // registers Hypot's tiling class is still the one chosen.
    std::ofstream(pkg / "op_host" / "a_grad_tiling.h")
        << "#pragma once\n#include \"register/tilingdata_base.h\"\nnamespace optiling {\n"
           "BEGIN_TILING_DATA_DEF(HypotGradTilingData)\nTILING_DATA_FIELD_DEF(uint32_t, n);\n"
           "END_TILING_DATA_DEF;\nREGISTER_TILING_DATA_CLASS(HypotGrad, HypotGradTilingData)\n}\n";
    std::ofstream(pkg / "op_kernel" / "a_grad.cpp") << "// another operator's kernel\n";
    auto defs = aopt::npu::read_op_defs(pkg, aopt::npu::default_sim_toolchain(), dir.path());
    REQUIRE_MESSAGE(defs.ok(), defs.error().message());
    auto skeleton = aopt::npu::op_json_skeleton(pkg, *defs);
    REQUIRE_MESSAGE(skeleton.ok(), skeleton.error().message());
    CHECK((*skeleton)["files"]["tiling_header"] == "op_host/hypot_defs.h");
    CHECK((*skeleton)["files"]["host"] == "op_host/impl.cpp");
    CHECK((*skeleton)["files"]["kernel"] == "op_kernel/impl.cpp");
    const auto& out = (*skeleton)["outputs"][0];
    CHECK(out["name"] == "x");
    CHECK(out["inplace"] == "x");
    CHECK_FALSE(out.contains("shape"));  // the input's
    auto spec = aopt::npu::parse_op_spec(*skeleton);
    REQUIRE_MESSAGE(spec.ok(), spec.error().message());
    CHECK(spec->outputs[0].has_own_argument());
    // The OpDef chosen by its op type (`aopt init --op-type`), and one the host lacks refused.
    auto named = aopt::npu::op_json_skeleton(pkg, *defs, "Hypot");
    REQUIRE_MESSAGE(named.ok(), named.error().message());
    CHECK((*named)["name"] == "hypot");
    auto missing = aopt::npu::op_json_skeleton(pkg, *defs, "HypotGrad");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message().find("no OpDef of op type HypotGrad") != std::string::npos);
  }

  TEST_CASE("aopt init takes shapes and value ranges from a msOpST-style case file") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "team_layout_add", pkg,
             fs::copy_options::recursive);
    fs::remove(pkg / "op.json");
    std::ofstream(pkg / "TeamLayoutAdd_case.json") << R"([{
      "case_name": "Test_TeamLayoutAdd_001", "op": "TeamLayoutAdd",
      "input_desc": [
        {"format": ["ND"], "type": ["float"], "shape": [8, 2048], "value_range": [[-3.0, 3.0]]},
        {"format": ["ND"], "type": ["float"], "shape": [8, 2048], "value_range": [[0.5, 1.0]]}],
      "output_desc": [{"format": ["ND"], "type": ["float"], "shape": [8, 2048]}]}])";
    // The work dir load_op_package reads OpDefs in: the sources are the first test's, so this
    // reads what an earlier run or test cached rather than compiling them again.
    auto defs = aopt::npu::read_op_defs(pkg, aopt::npu::default_sim_toolchain(),
                                        fs::temp_directory_path() / "aopt-opdef");
    REQUIRE_MESSAGE(defs.ok(), defs.error().message());
    auto skeleton = aopt::npu::op_json_skeleton(pkg, *defs);
    REQUIRE(skeleton.ok());
    CHECK((*skeleton)["inputs"][0]["shape"] == nlohmann::json({8, 2048}));
    CHECK((*skeleton)["inputs"][1]["range"] == nlohmann::json({0.5, 1.0}));
    CHECK((*skeleton)["outputs"][0]["shape"] == nlohmann::json({8, 2048}));
    CHECK(aopt::npu::parse_op_spec(*skeleton).ok());
  }

  TEST_CASE("what an OpDef constructor prints does not reach the OpDefs read") {
    // A debug line in the registration, on the standard output the reader's JSON once used.
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "team_layout_add", pkg,
             fs::copy_options::recursive);
    const fs::path host = pkg / "op_host" / "team_layout_add.cpp";
    std::ifstream original(host);
    std::string text((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
    original.close();
    const std::string ctor = "explicit TeamLayoutAdd(const char* name) : OpDef(name) {\n";
    const size_t at = text.find(ctor);
    REQUIRE(at != std::string::npos);
    text.insert(at + ctor.size(), "    printf(\"[{\\\"op_type\\\": \\\"Forged\\\"}]\\n\");\n");
    text.insert(0, "#include <cstdio>\n");
    std::ofstream(host, std::ios::trunc) << text;
    auto defs = aopt::npu::read_op_defs(pkg, aopt::npu::default_sim_toolchain(), dir.path());
    REQUIRE_MESSAGE(defs.ok(), defs.error().message());
    REQUIRE(defs->size() == 1);
    CHECK((*defs)[0]["op_type"] == "TeamLayoutAdd");
  }

  TEST_CASE("the OpDefs cached for a package's sources are read without compiling them") {
    aopt::testing::temp_dir dir;
    const fs::path pkg = dir.path() / "team_layout_add";
    fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "ops" / "team_layout_add", pkg,
             fs::copy_options::recursive);
    const aopt::npu::sim_toolchain toolchain = aopt::npu::default_sim_toolchain();
    auto key = aopt::npu::op_defs_cache_key(pkg, toolchain);
    REQUIRE(key.ok());
    // An entry planted under the sources' key: read_op_defs answers with it, so it compiled
    // nothing (the host registers TeamLayoutAdd).
    const nlohmann::json planted = nlohmann::json::parse(
        R"([{"op_type": "Planted", "inputs": [], "outputs": [], "attrs": []}])");
    std::ofstream(dir.path() / "planted.json") << planted.dump();
    aopt::npu::compile_cache cache(dir.path() / "work" / "opdef-cache");
    REQUIRE(cache.store(*key, dir.path() / "planted.json").ok());
    auto defs = aopt::npu::read_op_defs(pkg, toolchain, dir.path() / "work");
    REQUIRE_MESSAGE(defs.ok(), defs.error().message());
    CHECK(*defs == planted);
    // Any change to a source of the package is another key; the toolchain's too.
    std::ofstream(pkg / "op_kernel" / "team_layout_add_block.h", std::ios::app) << "// edited\n";
    auto edited = aopt::npu::op_defs_cache_key(pkg, toolchain);
    REQUIRE(edited.ok());
    CHECK(*edited != *key);
    aopt::npu::sim_toolchain other = toolchain;
    other.candidate_flags.push_back("-DAOPT_OTHER");
    CHECK(*aopt::npu::op_defs_cache_key(pkg, other) != *edited);
  }

  TEST_CASE("aopt init says why a package without host sources has no OpDef") {
    aopt::testing::temp_dir dir;
    fs::create_directories(dir.path() / "empty_op" / "op_kernel");
    auto defs = aopt::npu::read_op_defs(dir.path() / "empty_op", aopt::npu::default_sim_toolchain(),
                                        dir.path());
    REQUIRE_FALSE(defs.ok());
    CHECK(defs.error().message().find("no host sources") != std::string::npos);
  }
}
