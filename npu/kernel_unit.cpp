#include "npu/kernel_unit.hpp"

#include <filesystem>
#include <set>
#include <vector>

#include "npu/package_include.hpp"

namespace aopt::npu {
namespace {

struct joiner {
  const op_package& op;
  std::string kernel_dir;             // the kernel file's folder, relative to the package root
  std::set<std::string> files;        // every package file, relative to the package root
  std::set<std::string> host_shared;  // headers the host program includes too
  std::set<std::string> joined;

  bool own_header(const std::string& rel) const {
    if (!op.other_files.count(rel) || host_shared.count(rel)) return false;
    const std::string folder = std::filesystem::path(rel).parent_path().string();
    return folder == kernel_dir || folder.rfind(kernel_dir + "/", 0) == 0;
  }

  // `source` (the package file `path`) with its own headers joined in.
  std::string join(const std::string& path, const std::string& source) {
    std::vector<include_directive> includes = include_directives(source);
    if (includes.empty()) return source;
    std::vector<std::string> lines;
    size_t begin = 0;
    while (begin <= source.size()) {
      const size_t end = source.find('\n', begin);
      lines.push_back(
          source.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
      if (end == std::string::npos) break;
      begin = end + 1;
    }
    bool changed = false;
    for (const include_directive& inc : includes) {
      if (inc.directive != "include" || inc.angled || inc.path.empty()) continue;
      if (inc.line == 0 || inc.line > lines.size()) continue;
      std::optional<std::string> rel = resolve_package_include(path, inc.path, files);
      if (!rel || !own_header(*rel)) continue;
      changed = true;
      if (!joined.insert(*rel).second) {
        lines[inc.line - 1] = "// aopt: " + *rel + " joined above";
        continue;
      }
      lines[inc.line - 1] = "// aopt: " + *rel + " joined from here (#include \"" + inc.path +
                            "\")\n" + join(*rel, op.other_files.at(*rel)) + "\n// aopt: end of " +
                            *rel;
    }
    if (!changed) return source;
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? "" : "\n") + lines[i];
    return out;
  }
};

}  // namespace

std::string kernel_with_own_headers(const op_package& op) {
  joiner j{op, std::filesystem::path(op.spec.files.kernel).parent_path().string(), {}, {}, {}};
  for (const auto& [rel, text] : op.other_files) j.files.insert(rel);
  for (const std::string* f :
       {&op.spec.files.kernel, &op.spec.files.host, &op.spec.files.tiling_header}) {
    j.files.insert(*f);
  }
  for (const include_directive& inc : include_directives(op.host_source)) {
    if (inc.angled) continue;
    if (auto rel = resolve_package_include(op.spec.files.host, inc.path, j.files)) {
      j.host_shared.insert(*rel);
    }
  }
  return j.join(op.spec.files.kernel, op.kernel_source);
}

}  // namespace aopt::npu
