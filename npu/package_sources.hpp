// An operator package as it crosses the network to a remote evaluation worker (issue 19): the
// spec as op.json text, the four sources and the package's other source files, named by a content
// hash. A worker caches packages by that hash and asks the coordinator only for the ones it lacks.
#pragma once

#include <map>
#include <string>

#include "base/status.hpp"
#include "npu/op_package.hpp"

namespace aopt::npu {

struct package_sources {
  std::string spec_json;  // to_json(op_spec): the tuning shapes as the evaluation sees them
  std::string tiling_header;
  std::string host;
  std::string kernel;
  std::string reference;
  std::map<std::string, std::string> other_files;  // op_package::other_files
};

package_sources sources_of(const op_package& op);

// The content hash of the sources (32 hex digits).
std::string package_hash(const package_sources& sources);

// The package the sources describe; `dir` is only a name for it (the sources are in memory).
// Errors name what is wrong (an invalid op.json field).
result<op_package> package_from_sources(const package_sources& sources, const std::string& dir);

}  // namespace aopt::npu
