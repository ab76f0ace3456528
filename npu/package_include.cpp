#include "npu/package_include.hpp"

#include <filesystem>

namespace aopt::npu {

namespace {

// `dir`/`path` made lexical (no "." or ".." left), or nothing when it climbs above the root.
std::optional<std::string> inside(const std::string& dir, const std::string& path) {
  const std::filesystem::path joined =
      (dir.empty() ? std::filesystem::path(path) : std::filesystem::path(dir) / path)
          .lexically_normal();
  const std::string text = joined.generic_string();
  if (joined.is_absolute() || text == ".." || text.rfind("../", 0) == 0) return std::nullopt;
  return text;
}

std::string folder_of(const std::string& file) {
  return std::filesystem::path(file).parent_path().generic_string();
}

}  // namespace

const std::vector<std::string>& package_quote_dirs() {
  static const std::vector<std::string> dirs = {"", "op_host", "op_kernel"};
  return dirs;
}

std::optional<std::string> resolve_package_include(const std::string& including,
                                                   const std::string& path,
                                                   const std::set<std::string>& package_files) {
  if (path.empty() || path[0] == '/') return std::nullopt;
  std::vector<std::string> dirs = {folder_of(including)};
  dirs.insert(dirs.end(), package_quote_dirs().begin(), package_quote_dirs().end());
  for (const std::string& dir : dirs) {
    const std::optional<std::string> candidate = inside(dir, path);
    // The compiler takes the first folder where the file exists: one out of the package could
    // hold a file of the same name, so the search stops there.
    if (!candidate) return std::nullopt;
    if (package_files.count(*candidate) != 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace aopt::npu
