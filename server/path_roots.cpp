#include "server/path_roots.hpp"

#include <algorithm>

namespace aopt::server {
namespace fs = std::filesystem;

namespace {

fs::path resolve(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p, ec), ec);
  return ec ? fs::absolute(p).lexically_normal() : r;
}

}  // namespace

path_roots::path_roots(const std::vector<fs::path>& roots) {
  for (const fs::path& r : roots) roots_.push_back(resolve(r));
}

bool path_roots::contains(const fs::path& resolved) const {
  return std::any_of(roots_.begin(), roots_.end(), [&](const fs::path& root) {
    auto [root_end, _] = std::mismatch(root.begin(), root.end(), resolved.begin(), resolved.end());
    return root_end == root.end();
  });
}

result<fs::path> path_roots::confine(const fs::path& p) const {
  const fs::path resolved = resolve(p);
  if (!contains(resolved)) {
    return failed_precondition(p.string() + ": outside the folders this daemon may read " +
                               "(server.roots)");
  }
  return resolved;
}

}  // namespace aopt::server
