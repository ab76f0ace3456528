#include "npu/package_sources.hpp"

#include "base/content_hash.hpp"

namespace aopt::npu {

package_sources sources_of(const op_package& op) {
  return {nlohmann::json(op.spec).dump(),
          op.tiling_header_source,
          op.host_source,
          op.kernel_source,
          op.reference_source,
          op.other_files};
}

std::string package_hash(const package_sources& s) {
  std::vector<std::string> parts = {"op-package-v1", s.spec_json, s.tiling_header,
                                    s.host,          s.kernel,    s.reference};
  // Appended only when present: a four-file package keeps its hash.
  for (const auto& [path, text] : s.other_files) {
    parts.push_back(path);
    parts.push_back(text);
  }
  return content_hash(parts);
}

result<op_package> package_from_sources(const package_sources& s, const std::string& dir) {
  nlohmann::json j = nlohmann::json::parse(s.spec_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return invalid_argument("package " + dir + ": op.json is not JSON");
  result<op_spec> spec = parse_op_spec(j);
  if (!spec.ok()) return spec.error().with_context("package " + dir);
  op_package pkg;
  pkg.dir = dir;
  pkg.spec = std::move(*spec);
  pkg.tiling_header_source = s.tiling_header;
  pkg.host_source = s.host;
  pkg.kernel_source = s.kernel;
  pkg.reference_source = s.reference;
  pkg.other_files = s.other_files;
  return pkg;
}

}  // namespace aopt::npu
