// The source screen's cost and verdicts (issue 30 item 3, issue 33): every operator package of
// the given folders (default: the corpus, the test packages and ../shared/wild) screened by the
// token screen of the includes (static_screen.hpp) and the AST screen (ast_screen.hpp), as the
// simulator screens a candidate before compiling it. Prints each package's verdicts, the
// packages refused, and the median milliseconds per package of each screen: the AST screen's
// first screen of a package (both units parsed; the shim's PCH is built before timing) and a
// screen of the same package again (the verdict cache).
//
//   bench_screen_cost [FOLDER]... [--quiet]
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "base/scratch_dir.hpp"
#include "npu/op_package.hpp"
#include "npu/sim/device/ast_screen.hpp"
#include "npu/sim/device/candidate_builder.hpp"
#include "npu/sim/device/static_screen.hpp"

namespace fs = std::filesystem;
using namespace aopt::npu;

namespace {

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::optional<screen_finding> token_screen(const op_package& op, const screen_includes& inc) {
  if (auto f = screen_source(op.spec.files.host, op.host_source, inc)) return f;
  if (auto f = screen_source(op.spec.files.kernel, op.kernel_source, inc)) return f;
  for (const auto& [path, text] : op.other_files) {
    if (auto f = screen_source(path, text, inc)) return f;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"The source screen's verdicts and cost over folders of operator packages"};
  const fs::path source(AOPT_SOURCE_DIR);
  std::vector<std::string> roots = {
      (source / "corpus").string(), (source / "tests/data/ops").string(),
      (source / ".." / "shared" / "wild").lexically_normal().string()};
  bool quiet = false;
  app.add_option("folders", roots, "Folders of operator packages (searched recursively)");
  app.add_flag("--quiet", quiet, "Print the refused packages and the totals only");
  CLI11_PARSE(app, argc, argv);

  const sim_toolchain toolchain = default_sim_toolchain();
  auto work = aopt::scratch_dir::create(fs::temp_directory_path(), "aopt-screen-bench-");
  if (!work.ok()) return 2;
  const ast_screen screen(toolchain, work->path());
  const std::set<std::string> shim = shim_header_set(toolchain.include_dir.string());

  std::vector<double> token_ms, first_ms, again_ms;
  size_t packages = 0, refused = 0, unjudged = 0, unloadable = 0;
  for (const std::string& root : roots) {
    std::vector<fs::path> dirs;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename() == "op.json") dirs.push_back(it->path().parent_path());
    }
    std::sort(dirs.begin(), dirs.end());
    for (const fs::path& dir : dirs) {
      auto op = load_op_package(dir);
      if (!op.ok()) {
        ++unloadable;
        if (!quiet) fmt::print("{}: not loadable: {}\n", dir.string(), op.error().message());
        continue;
      }
      ++packages;
      const screen_includes inc{op->spec.files.tiling_header, package_file_set(*op), shim};
      auto t = std::chrono::steady_clock::now();
      const auto by_tokens = token_screen(*op, inc);
      token_ms.push_back(ms_since(t));
      if (packages == 1) (void)screen.screen(*op, op->host_source, &op->kernel_source);  // PCHs
      t = std::chrono::steady_clock::now();
      const auto by_ast = screen.screen(*op, op->host_source, &op->kernel_source);
      if (packages > 1) first_ms.push_back(ms_since(t));
      t = std::chrono::steady_clock::now();
      (void)screen.screen(*op, op->host_source, &op->kernel_source);
      again_ms.push_back(ms_since(t));
      const auto& f = by_tokens ? by_tokens : by_ast;
      if (f) {
        ++(f->unjudged ? unjudged : refused);
        fmt::print("{}: {}{}\n", dir.string(), f->unjudged ? "UNJUDGED " : "REFUSED ",
                   f->message());
      } else if (!quiet) {
        fmt::print("{}: ok\n", dir.string());
      }
    }
  }
  fmt::print(
      "\n{} packages ({} not loadable): {} refused, {} unparsed by the screen, {} passed\n"
      "median ms per package: token screen {:.2f}, AST screen {:.1f} (first), {:.2f} (again, "
      "cached); AST units parsed {} by {} parser processes\n",
      packages, unloadable, refused, unjudged, packages - refused - unjudged, median(token_ms),
      median(first_ms), median(again_ms), screen.units_parsed(), screen.parser_processes_started());
  return 0;
}
