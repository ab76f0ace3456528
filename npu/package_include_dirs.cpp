#include "npu/package_include_dirs.hpp"

#include <glob.h>

#include <deque>
#include <set>

#include <fmt/format.h>

#include "base/file_beneath.hpp"
#include "base/utf8.hpp"
#include "npu/package_include.hpp"

namespace aopt::npu {

namespace {

namespace fs = std::filesystem;

// `path` made lexical inside the package, or empty when it is absolute or climbs.
std::string package_path(const fs::path& path) {
  const fs::path normal = path.lexically_normal();
  const std::string text = normal.generic_string();
  if (normal.is_absolute() || text.empty() || text == ".." || text.rfind("../", 0) == 0) return {};
  return text;
}

// Where in the package the compiler would look for `d` from the file `including`, in order.
std::vector<std::string> package_candidates(const std::string& including,
                                            const include_directive& d) {
  std::vector<std::string> out;
  if (!d.angled) {
    const std::string beside = package_path(fs::path(including).parent_path() / d.path);
    if (!beside.empty()) out.push_back(beside);
  }
  const std::string from_root = package_path(d.path);
  if (!from_root.empty() && (out.empty() || out.front() != from_root)) out.push_back(from_root);
  return out;
}

bool climbs_or_absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return true;
  for (const fs::path& part : fs::path(path)) {
    if (part == "..") return true;
  }
  return false;
}

// Frees glob's list however the expansion ends.
struct glob_list {
  glob_t list{};
  ~glob_list() { globfree(&list); }
};

}  // namespace

bool is_include_pattern(const fs::path& dir) {
  return dir.string().find_first_of("*?[") != std::string::npos;
}

result<std::vector<fs::path>> expand_include_dirs(const std::vector<fs::path>& dirs) {
  std::vector<fs::path> out;
  for (const fs::path& dir : dirs) {
    if (!is_include_pattern(dir)) {
      out.push_back(dir);
      continue;
    }
    glob_list matches;
    const int rc = ::glob(dir.c_str(), GLOB_ONLYDIR | GLOB_ERR, nullptr, &matches.list);
    size_t folders = 0;
    for (size_t i = 0; rc == 0 && i < matches.list.gl_pathc; ++i) {
      const fs::path match = fs::path(matches.list.gl_pathv[i]).lexically_normal();
      std::error_code ec;
      if (!fs::is_directory(match, ec)) continue;  // GLOB_ONLYDIR may also return files
      // A folder reached through a link could lie anywhere: the pattern's text would not say.
      if (fs::weakly_canonical(match, ec) != fs::absolute(match, ec).lexically_normal()) {
        return failed_precondition(match.string() + ": a folder the include pattern " +
                                   dir.string() + " matches through a symbolic link");
      }
      out.push_back(match);
      ++folders;
    }
    if (folders == 0) {
      return not_found(dir.string() + ": an include folder pattern that matches no folder");
    }
  }
  return out;
}

result<joined_headers> join_include_dirs(const std::map<std::string, std::string>& package_files,
                                         const std::vector<fs::path>& include_dirs,
                                         uint64_t max_file_bytes, size_t max_files) {
  joined_headers joined;
  if (include_dirs.empty()) return joined;
  result<std::vector<fs::path>> expanded = expand_include_dirs(include_dirs);
  if (!expanded.ok()) return expanded.error();
  for (const fs::path& dir : *expanded) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      return not_found(dir.string() + ": an include folder of the operator that is not a folder");
    }
  }
  std::set<std::string> known;
  for (const auto& [path, text] : package_files) known.insert(path);
  std::deque<std::pair<std::string, const std::string*>> pending;
  for (const auto& [path, text] : package_files) pending.emplace_back(path, &text);

  while (!pending.empty()) {
    const auto [including, text] = pending.front();
    pending.pop_front();
    for (const include_directive& d : include_directives(*text)) {
      if (d.directive == "embed" || climbs_or_absolute(d.path)) continue;
      if (!d.angled && resolve_package_include(including, d.path, known)) continue;
      if (d.angled && known.count(package_path(d.path)) != 0) continue;
      for (const std::string& candidate : package_candidates(including, d)) {
        bool found = false;
        for (const fs::path& dir : *expanded) {
          std::error_code ec;
          if (!fs::exists(dir / candidate, ec)) continue;
          result<std::string> header = read_file_beneath(dir, candidate, max_file_bytes);
          if (!header.ok()) return header.error();
          if (const size_t at = invalid_utf8_offset(*header); at != std::string_view::npos) {
            return invalid_argument(fmt::format("{}: not UTF-8 text (invalid byte at offset {})",
                                                (dir / candidate).string(), at));
          }
          if (known.size() + 1 > max_files) {
            return invalid_argument(
                fmt::format("{}: joining {} would make the package more than {} source files",
                            including, (dir / candidate).string(), max_files));
          }
          known.insert(candidate);
          joined.sources[candidate] = dir / candidate;
          auto [it, inserted] = joined.files.emplace(candidate, std::move(header).value());
          pending.emplace_back(candidate, &it->second);
          found = true;
          break;
        }
        if (found) break;
      }
    }
  }
  return joined;
}

}  // namespace aopt::npu
