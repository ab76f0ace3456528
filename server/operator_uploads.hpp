// Operator packages that clients upload to the daemon, for campaigns over operators the daemon
// cannot read from its own roots. An upload is JSON
//   {"files": {"op.json": "...", "op_host/add_custom.cpp": "...", ...}}
// holding the text of each file of the package layout (docs/design.md §7): op.json and
// reference.cpp at the top, sources and headers in op_host/ and op_kernel/. Nothing else is
// accepted: no absolute path, no "..", no other folder, no hidden file, so a file name can
// never point outside the package.
//
// A package is stored under <dir>/<id>/, where the id is a hash of its contents: uploading the
// same package twice stores it once, and a stored package never changes. It is written to a
// temporary folder and renamed into place, so a reader sees a whole package or none.
//
// Thread-safety: immutable after construction; store() may run on many threads at once.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::server {

struct upload_receipt {
  std::string id;  // "u-" + 16 hex digits
  std::string operator_name;
  size_t files = 0;
  bool created = false;  // false: the same package was already stored
};

// Whether `name` is a file of the package layout (see the top of this file).
bool valid_package_file_name(std::string_view name);

class operator_uploads {
 public:
  static constexpr size_t max_files = 16;
  static constexpr size_t max_file_bytes = size_t{1} << 20;

  // `dir` "" = uploads disabled. The folder is created on the first upload.
  explicit operator_uploads(std::filesystem::path dir) : dir_(std::move(dir)) {}

  bool enabled() const { return !dir_.empty(); }
  const std::filesystem::path& dir() const { return dir_; }

  // Validates and stores a package. Errors: invalid_argument naming the problem (bad layout,
  // file name or size, op.json or a named file missing or invalid); unimplemented when uploads
  // are disabled; internal for file system failures.
  result<upload_receipt> store(const nlohmann::json& body) const;

  // The folder of a stored package. Errors: invalid_argument for a malformed id; not_found.
  result<std::filesystem::path> find(const std::string& id) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace aopt::server
