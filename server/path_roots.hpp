// The folders the daemon may read operator packages from (server.roots). A path named in a
// request is resolved (symbolic links and ".." included) before it is checked, so neither
// "root/../etc" nor a link inside a root that points elsewhere gets out.
//
// Thread-safety: immutable after construction; safe to share.
#pragma once

#include <filesystem>
#include <vector>

#include "base/status.hpp"

namespace aopt::server {

class path_roots {
 public:
  // Relative roots are taken relative to the current directory at construction.
  explicit path_roots(const std::vector<std::filesystem::path>& roots);

  // The resolved form of `p` when it lies inside a root. Errors: failed_precondition naming the
  // path when it is outside every root (or there are no roots).
  result<std::filesystem::path> confine(const std::filesystem::path& p) const;
  bool contains(const std::filesystem::path& resolved) const;

 private:
  std::vector<std::filesystem::path> roots_;  // resolved
};

}  // namespace aopt::server
