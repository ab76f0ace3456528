#include "npu/package_include.hpp"

#include <cctype>
#include <deque>
#include <filesystem>
#include <sstream>

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

// Moves `i` past blanks and /* */ comments; false when the line ends first.
bool skip_space_and_comments(const std::string& line, size_t& i) {
  for (;;) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (line.compare(i, 2, "/*") != 0) return i < line.size();
    const size_t end = line.find("*/", i + 2);
    if (end == std::string::npos) return false;
    i = end + 2;
  }
}

}  // namespace

std::vector<include_directive> include_directives(const std::string& source) {
  std::vector<include_directive> found;
  std::istringstream in(source);
  size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    size_t i = 0;
    if (!skip_space_and_comments(line, i)) continue;
    if (line[i] == '#') {
      ++i;
    } else if (line.compare(i, 2, "%:") == 0) {
      i += 2;
    } else {
      continue;
    }
    if (!skip_space_and_comments(line, i)) continue;
    const size_t word = i;
    while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_'))
      ++i;
    include_directive d;
    d.line = number;
    d.directive = line.substr(word, i - word);
    if (d.directive != "include" && d.directive != "include_next" && d.directive != "import" &&
        d.directive != "embed") {
      continue;
    }
    if (skip_space_and_comments(line, i) && (line[i] == '"' || line[i] == '<')) {
      d.angled = line[i] == '<';
      const size_t end = line.find(d.angled ? '>' : '"', i + 1);
      d.path = line.substr(i + 1, end == std::string::npos ? end : end - i - 1);
    }
    found.push_back(std::move(d));
  }
  return found;
}

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

std::optional<std::set<std::string>> reached_package_files(
    const std::map<std::string, std::string>& files, const std::vector<std::string>& roots) {
  std::set<std::string> known;
  for (const auto& [path, text] : files) known.insert(path);
  std::set<std::string> reached;
  std::deque<std::string> pending;
  auto reach = [&](const std::string& path) {
    if (known.count(path) != 0 && reached.insert(path).second) pending.push_back(path);
  };
  for (const std::string& root : roots) reach(root);
  while (!pending.empty()) {
    const std::string including = pending.front();
    pending.pop_front();
    for (const include_directive& d : include_directives(files.at(including))) {
      if (d.path.empty()) return std::nullopt;
      if (d.angled) {
        if (const std::optional<std::string> from_root = inside("", d.path)) reach(*from_root);
      } else if (const std::optional<std::string> file =
                     resolve_package_include(including, d.path, known)) {
        reach(*file);
      }
    }
  }
  return reached;
}

}  // namespace aopt::npu
