#include "npu/op_package.hpp"

#include <fmt/format.h>

#include "base/file_beneath.hpp"
#include "base/utf8.hpp"

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

}  // namespace

result<op_package> load_op_package(const std::filesystem::path& dir) {
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
  auto spec = parse_op_spec(j, spec_path.string());
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
  return pkg;
}

}  // namespace aopt::npu
