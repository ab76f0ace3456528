#include "server/operator_uploads.hpp"

#include <fstream>
#include <map>
#include <random>
#include <regex>

#include "base/content_hash.hpp"
#include "npu/op_package.hpp"

namespace aopt::server {
namespace fs = std::filesystem;

namespace {

constexpr const char* id_prefix = "u-";
constexpr size_t id_hex_digits = 16;

bool valid_upload_id(const std::string& id) {
  static const std::regex pattern("u-[0-9a-f]{16}");
  return std::regex_match(id, pattern);
}

// Removes a folder tree when it goes out of scope, unless released.
class folder_guard {
 public:
  explicit folder_guard(fs::path dir) : dir_(std::move(dir)) {}
  ~folder_guard() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }
  folder_guard(const folder_guard&) = delete;
  folder_guard& operator=(const folder_guard&) = delete;

 private:
  fs::path dir_;
};

std::string random_suffix() {
  std::random_device rd;
  return std::to_string(rd()) + std::to_string(rd());
}

status write_file(const fs::path& file, const std::string& text) {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) return internal_error(file.parent_path().string() + ": " + ec.message());
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return internal_error(file.string() + ": could not write");
  return status{};
}

}  // namespace

bool valid_package_file_name(std::string_view name) {
  if (name == "op.json" || name == "reference.cpp") return true;
  // One folder of the layout, then a plain file name with a source extension.
  static const std::regex in_folder(
      "(op_host|op_kernel)/[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}\\.(h|hpp|cpp|cc)");
  return std::regex_match(name.begin(), name.end(), in_folder);
}

result<upload_receipt> operator_uploads::store(const nlohmann::json& body) const {
  if (!enabled()) {
    return status(status_code::unimplemented, "this daemon accepts no uploaded operator packages");
  }
  if (!body.is_object()) return invalid_argument("the body must be a JSON object");
  for (const auto& item : body.items()) {
    if (item.key() != "files") return invalid_argument("unknown key '" + item.key() + "'");
  }
  const auto files = body.find("files");
  if (files == body.end() || !files->is_object()) {
    return invalid_argument("'files' must be an object from file name to file text");
  }
  if (files->size() > max_files) {
    return invalid_argument("at most " + std::to_string(max_files) + " files per package");
  }
  if (!files->contains("op.json")) return invalid_argument("the package has no op.json");
  // nlohmann keeps object keys sorted, so the hash does not depend on the client's key order.
  content_hasher hasher;
  for (const auto& [name, text] : files->items()) {
    if (!valid_package_file_name(name)) {
      return invalid_argument("'" + name +
                              "' is not a file of the package layout (op.json, reference.cpp, "
                              "op_host/<file>, op_kernel/<file> with .h, .hpp, .cpp or .cc)");
    }
    if (!text.is_string()) return invalid_argument("'" + name + "': the text must be a string");
    if (text.get_ref<const std::string&>().size() > max_file_bytes) {
      return invalid_argument("'" + name + "' is larger than " + std::to_string(max_file_bytes) +
                              " bytes");
    }
    hasher.add(name).add(text.get_ref<const std::string&>());
  }

  upload_receipt receipt;
  receipt.id = id_prefix + hasher.hex().substr(0, id_hex_digits);
  receipt.files = files->size();
  const fs::path target = dir_ / receipt.id;
  const fs::path staging = dir_ / (".staging-" + receipt.id + "-" + random_suffix());
  folder_guard cleanup(staging);
  for (const auto& [name, text] : files->items()) {
    AOPT_RETURN_IF_ERROR(write_file(staging / name, text.get_ref<const std::string&>()));
  }
  // The whole package must load, so a campaign never starts on a broken upload.
  npu::package_load_options load;
  load.allow_include_dirs =
      false;  // an upload carries its headers; the daemon's files stay its own
  // Nor is its OpDef compiled while the request waits: an uploaded op.json says it all.
  load.read_op_def = false;
  result<npu::op_package> package = npu::load_op_package(staging, load);
  if (!package.ok()) {
    // The staging folder's name means nothing to the client.
    std::string why = package.error().message();
    for (size_t at; (at = why.find(staging.string() + "/")) != std::string::npos;) {
      why.erase(at, staging.string().size() + 1);
    }
    return invalid_argument("invalid operator package: " + why);
  }
  receipt.operator_name = package->spec.name;
  std::error_code ec;
  fs::rename(staging, target, ec);
  if (!ec) {
    receipt.created = true;
  } else if (!fs::is_directory(target)) {
    return internal_error(target.string() + ": " + ec.message());
  }
  return receipt;
}

result<fs::path> operator_uploads::find(const std::string& id) const {
  if (!valid_upload_id(id)) {
    return invalid_argument("'" + id + "' is no upload id (u- and 16 hex digits)");
  }
  std::error_code ec;
  const fs::path dir = dir_ / id;
  if (!enabled() || !fs::is_directory(dir, ec)) return not_found("no uploaded package " + id);
  return dir;
}

}  // namespace aopt::server
