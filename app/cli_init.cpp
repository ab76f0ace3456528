// `aopt init <op-dir> [--force] [--json] [--include-dir DIR]... [--op-type TYPE]`: writes the
// op.json skeleton of an operator package from what its own OpDef declares
// (npu/sim/device/opdef_reader.hpp: inputs, outputs, dtypes, attributes with defaults, the file
// names), for the user to add shapes, value ranges and the reference (issue 34). An existing
// op.json is kept unless --force.
//
// Exit status: 0 written; 2 bad input (no package, no host sources, host code the shim cannot
// compile, an op.json already there); 3 aopt's own failure.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "app/cli_commands.hpp"
#include "app/cli_include_folder.hpp"
#include "app/exit_codes.hpp"
#include "npu/sim/device/opdef_reader.hpp"

namespace aopt::runtime {

namespace {

namespace fs = std::filesystem;

constexpr int exit_internal = 3;

struct init_args {
  std::string op_dir;
  bool force = false;
  bool json = false;
  std::vector<std::string> include_dirs;
  std::string op_type;
};

int run_init(const init_args& args) {
  auto fail = [](const status& error) {
    fmt::print(stderr, "aopt init: {}\n", error.message());
    return error.code() == status_code::internal ? exit_internal : exit_bad_input;
  };
  const fs::path spec_path = fs::path(args.op_dir) / "op.json";
  std::error_code ec;
  if (fs::exists(spec_path, ec) && !args.force) {
    return fail(invalid_argument(spec_path.string() + " exists (--force replaces it)"));
  }
  const fs::path work = fs::temp_directory_path(ec) / "aopt-init";
  // Absolute, so that op.json names the same folders from wherever it is read.
  std::vector<fs::path> include_dirs;
  for (const std::string& d : args.include_dirs) {
    include_dirs.push_back(fs::absolute(d, ec).lexically_normal());
  }
  auto defs = npu::read_op_defs(args.op_dir, npu::default_sim_toolchain(), work, include_dirs);
  if (!defs.ok()) return fail(defs.error());
  auto skeleton = npu::op_json_skeleton(args.op_dir, *defs, args.op_type);
  if (!skeleton.ok()) return fail(skeleton.error());
  if (!include_dirs.empty()) {
    nlohmann::json listed = nlohmann::json::array();
    for (const fs::path& d : include_dirs) listed.push_back(d.string());
    (*skeleton)["include_dirs"] = listed;
  }
  std::ofstream out(spec_path, std::ios::trunc);
  out << skeleton->dump(2) << "\n";
  out.close();
  if (!out) return fail(internal_error("cannot write " + spec_path.string()));
  if (args.json) {
    std::cout << nlohmann::json{{"ok", true}, {"op_json", spec_path.string()}, {"spec", *skeleton}}
                     .dump(2)
              << std::endl;
  } else {
    fmt::print(
        "wrote {} from the OpDef: set the shapes, the inputs' value ranges and the "
        "reference\n",
        spec_path.string());
  }
  return exit_ok;
}

}  // namespace

void add_init_command(CLI::App& app, cli_context& ctx) {
  auto args = std::make_shared<init_args>();
  CLI::App* cmd = app.add_subcommand(
      "init",
      "Write an operator package's op.json skeleton from its OpDef (inputs, outputs, dtypes, "
      "attributes). Exit status: 0 written, 2 bad input, 3 aopt failure.");
  cmd->add_option("op-dir", args->op_dir, "Operator package directory (op_host/, op_kernel/)")
      ->required();
  cmd->add_flag("--force", args->force, "Replace an existing op.json");
  cmd->add_flag("--json", args->json, "Print one JSON object (the skeleton written)");
  cmd->add_option("--include-dir", args->include_dirs,
                  "A folder of the operator's repository its sources include headers from "
                  "(or a pattern of such folders, kernels/*/op_kernel; repeatable; written into "
                  "op.json's include_dirs)")
      ->check(include_folder());
  cmd->add_option("--op-type", args->op_type,
                  "The OpDef to write, when the host registers several (by op type, as OP_ADD "
                  "names it)");
  cmd->callback([args, &ctx] { ctx.exit_code = run_init(*args); });
}

}  // namespace aopt::runtime
