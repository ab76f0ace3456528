// Helper headers from the operator's repository (npu/package_include_dirs.hpp, issue 34): an
// operator that includes headers of its repository it does not carry evaluates once its
// repository's include folders are named (op.json's include_dirs or the loader's), with the
// headers joined to the package; bad folders and links are clear errors, and an upload may not
// name folders at all.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "npu/evaluate_on_simulator.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/sim_device.hpp"
#include "support/team_layout_repository.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using aopt::npu::load_op_package;
using aopt::npu::package_load_options;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

void replace_in_place(std::string& text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, from);
  text.replace(at, from.size(), to);
}

// The repository of support/team_layout_repository.hpp, with a kernel header in <root>/include
// too and a logging header the host includes by an angled path (which includes AscendCL's base
// header and a header beside it).
struct repository : aopt::testing::team_layout_repository {
  repository() {
    write(include / "common" / "kernel_limits.h",
          "#pragma once\n#include <cstdint>\nconstexpr uint32_t kTeamMaxBlocks = 48;\n");
    const fs::path kernel = package / "op_kernel" / "team_layout_add.cpp";
    std::string kernel_text = read(kernel);
    replace_in_place(kernel_text, "#include \"kernel_operator.h\"\n",
                     "#include \"kernel_operator.h\"\n#include \"common/kernel_limits.h\"\n"
                     "static_assert(kTeamMaxBlocks >= 8, \"the blocks fit\");\n");
    write(kernel, kernel_text);
    write(include / "log" / "team_log.h",
          "#pragma once\n"
          "#include <acl/acl_base.h>\n"
          "#include <cstdlib>\n"
          "#include \"detail/level.h\"\n"
          "#define CHECK_NULLPTR(ptr) \\\n"
          "  if (ptr == nullptr) {    \\\n"
          "    return ge::GRAPH_FAILED; \\\n"
          "  }\n"
          "#define TEAM_LOG_DEBUG(fmt, ...)                                                    \\\n"
          "  do {                                                                            \\\n"
          "    if (team_log::enabled(ACL_DEBUG)) {                                           \\\n"
          "      aclAppLog(ACL_DEBUG, __FUNCTION__, __FILE__, __LINE__, fmt, ##__VA_ARGS__); \\\n"
          "    }                                                                             \\\n"
          "  } while (0)\n");
    write(include / "log" / "detail" / "level.h",
          "#pragma once\n"
          "#include <cstdlib>\n"
          "namespace team_log {\n"
          "inline bool enabled(int level) {\n"
          "  const char* v = std::getenv(\"TEAM_LOG_LEVEL\");\n"
          "  return v != nullptr && std::atoi(v) <= level;\n"
          "}\n"
          "}  // namespace team_log\n");
    const fs::path host = package / "op_host" / "team_layout_add.cpp";
    std::string text = read(host);
    replace_in_place(text, "#include \"tiling_helpers/tile_math.h\"\n",
                     "#include \"tiling_helpers/tile_math.h\"\n#include <log/team_log.h>\n");
    replace_in_place(text, "  TeamLayoutAddTilingData tiling;\n",
                     "  CHECK_NULLPTR(context->GetRawTilingData())\n"
                     "  TeamLayoutAddTilingData tiling;\n");
    replace_in_place(text, "  context->SetBlockDim(kTeamLayoutBlocks);\n",
                     "  context->SetBlockDim(kTeamLayoutBlocks);\n"
                     "  TEAM_LOG_DEBUG(\"%u elements\", total);\n");
    write(host, text);
  }

  void name_include_dirs(const nlohmann::json& dirs) const {
    nlohmann::json spec = nlohmann::json::parse(read(package / "op.json"));
    spec["include_dirs"] = dirs;
    write(package / "op.json", spec.dump(1));
  }
};

using aopt::testing::evaluate_on_simulator;

}  // namespace

TEST_SUITE("npu") {
  TEST_CASE("headers from the repository's include folder join the package and it evaluates ok") {
    const repository repo;
    repo.name_include_dirs({"../../include"});
    auto op = load_op_package(repo.package);
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    // Quoted from the host and the kernel, angled from the host, and what those include.
    for (const char* joined : {"tiling_helpers/tile_math.h", "common/kernel_limits.h",
                               "log/team_log.h", "log/detail/level.h"}) {
      CAPTURE(joined);
      CHECK(op->other_files.count(joined) == 1);
      REQUIRE(op->joined_headers.count(joined) == 1);
      CHECK(op->joined_headers.at(joined) == repo.include / joined);
    }
    CHECK(op->joined_headers.size() == 4);
    const auto r = evaluate_on_simulator(*op);
    CHECK_MESSAGE(r.ok(), nlohmann::json(r).dump(1));
  }

  TEST_CASE("without its include folders the package names the header it lacks") {
    const repository repo;
    auto op = load_op_package(repo.package);
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    CHECK(op->joined_headers.empty());
    const auto r = evaluate_on_simulator(*op);
    CHECK(r.status == aopt::npu::eval_status::compile_error);
    CHECK(r.error_kind == "forbidden");

    // The loader's folders (aopt eval --include-dir) do what op.json's do.
    package_load_options load;
    load.include_dirs = {repo.include};
    auto with = load_op_package(repo.package, load);
    REQUIRE_MESSAGE(with.ok(), with.error().to_string());
    CHECK(with->joined_headers.size() == 4);
    CHECK(evaluate_on_simulator(*with).ok());
  }

  TEST_CASE("a joined header's text is part of the package's digest") {
    const repository repo;
    repo.name_include_dirs({"../../include"});
    auto before = load_op_package(repo.package);
    REQUIRE(before.ok());
    write(repo.include / "log" / "detail" / "level.h",
          read(repo.include / "log" / "detail" / "level.h") + "// changed\n");
    auto after = load_op_package(repo.package);
    REQUIRE(after.ok());
    CHECK(aopt::npu::other_files_digest(*before) != aopt::npu::other_files_digest(*after));
  }

  TEST_CASE("include folders that are missing, linked or not allowed are errors naming them") {
    const repository repo;
    repo.name_include_dirs({"../../no_such_folder"});
    auto missing = load_op_package(repo.package);
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code() == aopt::status_code::not_found);
    CHECK(missing.error().message().find("no_such_folder") != std::string::npos);

    repo.name_include_dirs({"../../include"});
    package_load_options upload;
    upload.allow_include_dirs = false;
    auto refused = load_op_package(repo.package, upload);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code() == aopt::status_code::invalid_argument);
    CHECK(refused.error().message().find("include_dirs") != std::string::npos);

    // A header reached through a link is refused as a linked package file is.
    aopt::testing::temp_dir elsewhere;
    write(elsewhere.path() / "level.h", "#pragma once\n");
    fs::remove(repo.include / "log" / "detail" / "level.h");
    fs::create_symlink(elsewhere.path() / "level.h", repo.include / "log" / "detail" / "level.h");
    auto linked = load_op_package(repo.package);
    REQUIRE_FALSE(linked.ok());
    CHECK(linked.error().code() == aopt::status_code::failed_precondition);
    CHECK(linked.error().message().find("level.h") != std::string::npos);
  }

  TEST_CASE("a pattern of include folders stands for every folder it matches, as a flat build") {
    // The kernel includes "kernel_limits.h" as a build that gathers every operator's kernel
    // folder into one finds it: in <root>/kernels/common/op_kernel, beside another operator's.
    const repository repo;
    const fs::path common = repo.root.path() / "kernels" / "common" / "op_kernel";
    write(common / "kernel_limits.h", read(repo.include / "common" / "kernel_limits.h"));
    write(repo.root.path() / "kernels" / "other" / "op_kernel" / "other.h", "#pragma once\n");
    const fs::path kernel = repo.package / "op_kernel" / "team_layout_add.cpp";
    std::string text = read(kernel);
    replace_in_place(text, "#include \"common/kernel_limits.h\"", "#include \"kernel_limits.h\"");
    write(kernel, text);
    package_load_options load;
    load.include_dirs = {repo.include, repo.root.path() / "kernels" / "*" / "op_kernel"};
    auto op = load_op_package(repo.package, load);
    REQUIRE_MESSAGE(op.ok(), op.error().to_string());
    REQUIRE(op->joined_headers.count("op_kernel/kernel_limits.h") +
                op->joined_headers.count("kernel_limits.h") ==
            1);
    CHECK(op->joined_headers.count("other.h") == 0);  // matched folders hold, nothing more joins
    CHECK(evaluate_on_simulator(*op).ok());

    // A pattern that matches no folder is named; so is a match through a link.
    load.include_dirs = {repo.include, repo.root.path() / "kernels" / "*" / "op_nothing"};
    auto none = load_op_package(repo.package, load);
    REQUIRE_FALSE(none.ok());
    CHECK(none.error().code() == aopt::status_code::not_found);
    CHECK(none.error().message().find("op_nothing") != std::string::npos);
    aopt::testing::temp_dir elsewhere;
    fs::create_directories(elsewhere.path() / "op_kernel");
    fs::create_directory_symlink(elsewhere.path(), repo.root.path() / "kernels" / "linked");
    load.include_dirs = {repo.include, repo.root.path() / "kernels" / "*" / "op_kernel"};
    auto linked = load_op_package(repo.package, load);
    REQUIRE_FALSE(linked.ok());
    CHECK(linked.error().code() == aopt::status_code::failed_precondition);
    CHECK(linked.error().message().find("linked") != std::string::npos);
  }

  TEST_CASE("op.json's include_dirs must be an array of folder paths") {
    const repository repo;
    for (const nlohmann::json& bad :
         {nlohmann::json("../../include"), nlohmann::json({""}), nlohmann::json({3})}) {
      CAPTURE(bad.dump());
      repo.name_include_dirs(bad);
      auto op = load_op_package(repo.package);
      REQUIRE_FALSE(op.ok());
      CHECK(op.error().code() == aopt::status_code::invalid_argument);
      CHECK(op.error().message().find("include_dirs") != std::string::npos);
    }
  }
}
