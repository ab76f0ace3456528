#include "npu/op_package.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "base/content_hash.hpp"
#include "base/file_beneath.hpp"
#include "base/utf8.hpp"
#include "npu/accumulated_outputs.hpp"
#include "npu/op_json_completion.hpp"
#include "npu/package_include.hpp"
#include "npu/package_include_dirs.hpp"
#include "npu/sim/device/opdef_reader.hpp"

namespace aopt::npu {

namespace {

using json = nlohmann::json;

// Sources larger than this are no operator anyone means to optimize; refusing them keeps a
// package from filling the daemon's memory.
constexpr uint64_t max_package_file_bytes = uint64_t{16} << 20;

// One file of the package, opened without following links (a link out of the package is
// refused) and required to be UTF-8 text, since it is stored and served as JSON.
result<std::string> read_package_file(const std::filesystem::path& dir, const std::string& name) {
  result<std::string> text = read_file_beneath(dir, name, max_package_file_bytes);
  if (!text.ok()) return text.error();
  if (const size_t at = invalid_utf8_offset(*text); at != std::string_view::npos) {
    return invalid_argument(
        fmt::format("{}: not UTF-8 text (invalid byte at offset {})", (dir / name).string(), at));
  }
  return text;
}

// A package with more source files than this is a repository, not an operator.
constexpr size_t max_package_source_files = 512;
constexpr int max_package_depth = 8;

// The relative paths of the package's source files under `dir` (sorted), without following
// links: a linked source file or folder is refused, as read_file_beneath refuses a linked file
// op.json names.
result<std::vector<std::string>> list_package_sources(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path rel = it->path().lexically_relative(dir);
    const std::string name = it->path().filename().string();
    const bool hidden = !name.empty() && name[0] == '.';
    const fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_directory(st)) {
      if (hidden || it.depth() >= max_package_depth) it.disable_recursion_pending();
      continue;
    }
    if (hidden) continue;
    // A linked folder is never entered (directory_options::none): refused rather than its
    // sources missing without a word.
    std::error_code target_ec;  // a dangling link is no folder
    const bool linked_folder = fs::is_symlink(st) && fs::is_directory(it->path(), target_ec);
    if (!linked_folder && !is_package_source_file(rel.string())) continue;
    if (fs::is_symlink(st)) {
      return failed_precondition(
          fmt::format("{}: a symbolic link, refused (a package's files are read only from inside "
                      "the package)",
                      it->path().string()));
    }
    found.push_back(rel.generic_string());
    if (found.size() > max_package_source_files) {
      return invalid_argument(fmt::format("{}: more than {} source files: not one operator",
                                          dir.string(), max_package_source_files));
    }
  }
  if (ec) return internal_error(dir.string() + ": cannot list the package: " + ec.message());
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

std::string other_files_digest(const op_package& op) {
  if (op.other_files.empty()) return {};
  std::vector<std::string> parts;
  for (const auto& [path, text] : op.other_files) {
    parts.push_back(path);
    parts.push_back(text);
  }
  return content_hash(parts);
}

bool is_package_source_file(const std::string& relative) {
  static const char* const extensions[] = {".h",   ".hh",  ".hpp", ".hxx", ".inc", ".inl", ".ipp",
                                           ".tpp", ".cpp", ".cc",  ".cxx", ".c",   ".cu"};
  const std::string ext = std::filesystem::path(relative).extension().string();
  return std::any_of(std::begin(extensions), std::end(extensions),
                     [&](const char* e) { return ext == e; });
}

namespace {

// The include folders the OpDef is read with, before op.json is parsed: its include_dirs
// (strings; anything else is the parse's to refuse later) where the loader allows them, then the
// loader's own.
std::vector<std::filesystem::path> opdef_include_dirs(const json& j,
                                                      const std::filesystem::path& dir,
                                                      const package_load_options& options) {
  std::vector<std::filesystem::path> dirs;
  const auto listed = j.find("include_dirs");
  if (options.allow_include_dirs && listed != j.end() && listed->is_array()) {
    for (const json& folder : *listed) {
      if (folder.is_string()) dirs.push_back((dir / folder.get<std::string>()).lexically_normal());
    }
  }
  dirs.insert(dirs.end(), options.include_dirs.begin(), options.include_dirs.end());
  return dirs;
}

}  // namespace

result<op_package> load_op_package(const std::filesystem::path& dir,
                                   const package_load_options& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return not_found(dir.string() + ": not an operator directory (no such directory)");
  }
  const std::filesystem::path spec_path = dir / "op.json";
  auto text = read_package_file(dir, "op.json");
  if (!text.ok()) return text.error();
  json j;
  try {
    j = json::parse(*text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e999
    return invalid_argument(spec_path.string() + ": invalid JSON: " + e.what());
  }
  op_package pkg;
  pkg.dir = dir;
  op_defs_reader read_defs;
  if (options.read_op_def) {
    read_defs = [&]() -> result<json> {
      std::error_code tmp_ec;
      const std::filesystem::path work =
          options.op_def_work_dir.empty()
              ? std::filesystem::temp_directory_path(tmp_ec) / "aopt-opdef"
              : options.op_def_work_dir;
      return read_op_defs(dir, default_sim_toolchain(), work, opdef_include_dirs(j, dir, options));
    };
  }
  auto completed = complete_op_json(j, dir, read_defs, spec_path.string(), pkg.assumptions);
  if (!completed.ok()) return completed.error();
  auto spec = parse_op_spec(*completed, spec_path.string());
  if (!spec.ok()) return spec.error();
  pkg.spec = std::move(spec).value();
  std::pair<const std::string*, std::string*> files[] = {
      {&pkg.spec.files.tiling_header, &pkg.tiling_header_source},
      {&pkg.spec.files.host, &pkg.host_source},
      {&pkg.spec.files.kernel, &pkg.kernel_source},
      {&pkg.spec.files.reference, &pkg.reference_source}};
  for (auto& [name, target] : files) {
    auto source = read_package_file(dir, *name);
    if (!source.ok()) {
      return status(source.error().code(),
                    source.error().message() + " (named in " + spec_path.string() + ")");
    }
    *target = std::move(source).value();
  }
  auto sources = list_package_sources(dir);
  if (!sources.ok()) return sources.error();
  std::map<std::string, std::string> package_files;
  for (const std::string& rel : *sources) {
    auto source = read_package_file(dir, rel);
    if (!source.ok()) return source.error();
    package_files.emplace(rel, std::move(source).value());
  }
  for (auto& [name, target] : files) package_files.insert_or_assign(*name, *target);
  // Only what the operator's own files include belongs to it: a folder as teams lay it out also
  // holds a framework binding, tests or another operator's kernel, which CANN's build of this
  // operator never reads, so neither does aopt's (nor screens them, nor hashes them).
  const std::vector<std::string> named = {pkg.spec.files.tiling_header, pkg.spec.files.host,
                                          pkg.spec.files.kernel, pkg.spec.files.reference};
  const std::optional<std::set<std::string>> reached = reached_package_files(package_files, named);
  for (auto& [rel, text] : package_files) {
    const bool is_named = std::find(named.begin(), named.end(), rel) != named.end();
    if (is_named || (reached && reached->count(rel) == 0)) continue;
    pkg.other_files.emplace(rel, std::move(text));
  }
  const std::vector<std::string> zero_init = assume_zero_init_of_accumulated_outputs(pkg);
  pkg.assumptions.insert(pkg.assumptions.end(), zero_init.begin(), zero_init.end());
  if (!pkg.spec.include_dirs.empty() && !options.allow_include_dirs) {
    return invalid_argument(spec_path.string() +
                            ": include_dirs: not allowed here (a package from elsewhere must "
                            "carry its headers)");
  }
  for (const std::string& folder : pkg.spec.include_dirs) {
    pkg.include_dirs.push_back((dir / folder).lexically_normal());
  }
  pkg.include_dirs.insert(pkg.include_dirs.end(), options.include_dirs.begin(),
                          options.include_dirs.end());
  if (pkg.include_dirs.empty()) return pkg;
  std::map<std::string, std::string> sources_by_path = pkg.other_files;
  for (auto& [name, target] : files) sources_by_path.emplace(*name, *target);
  sources_by_path.erase(pkg.spec.files.reference);
  auto joined = join_include_dirs(sources_by_path, pkg.include_dirs, max_package_file_bytes,
                                  max_package_source_files);
  if (!joined.ok()) {
    return status(joined.error().code(),
                  joined.error().message() + " (an include folder of " + spec_path.string() + ")");
  }
  pkg.other_files.merge(joined->files);
  pkg.joined_headers = std::move(joined->sources);
  return pkg;
}

result<std::map<std::string, std::string>> load_package_sources(
    const std::filesystem::path& dir, const std::vector<std::filesystem::path>& include_dirs) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return not_found(dir.string() + ": not an operator directory (no such directory)");
  }
  auto sources = list_package_sources(dir);
  if (!sources.ok()) return sources.error();
  std::map<std::string, std::string> files;
  for (const std::string& rel : *sources) {
    auto source = read_package_file(dir, rel);
    if (!source.ok()) return source.error();
    files.emplace(rel, std::move(source).value());
  }
  auto joined =
      join_include_dirs(files, include_dirs, max_package_file_bytes, max_package_source_files);
  if (!joined.ok()) return joined.error();
  files.merge(joined->files);
  return files;
}

}  // namespace aopt::npu
