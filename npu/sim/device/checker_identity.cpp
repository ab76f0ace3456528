#include "npu/sim/device/checker_identity.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/content_hash.hpp"

namespace aopt::npu {
namespace fs = std::filesystem;
namespace {

// The regular files of `dir` (also of its subfolders when `recursive`), sorted, so that the
// digest does not depend on listing order.
template <class Iterator>
std::vector<fs::path> files_of(const fs::path& dir, std::string& problems) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (Iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) problems += "listing " + dir.string() + ": " + ec.message() + "\n";
  std::sort(files.begin(), files.end());
  return files;
}

void add_file(content_hasher& hasher, const fs::path& file, const fs::path& base) {
  hasher.add(file.lexically_relative(base).string());
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    hasher.add("unreadable");
    return;
  }
  hasher.add(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

}  // namespace

std::string checker_identity(const sim_toolchain& toolchain, const sim::hw_profile& profile) {
  content_hasher hasher;
  hasher.add("sim-checker/1");
  hasher.add(nlohmann::json(profile).dump());
  add_file(hasher, toolchain.judge, toolchain.judge.parent_path());
  std::string problems;
  // The libraries only: lib_dir is a build folder, whose subfolders hold its objects and the
  // precompiled headers (made from include_dir, which is read whole).
  for (const fs::path& file : files_of<fs::directory_iterator>(toolchain.lib_dir, problems)) {
    if (file.extension() == ".a") add_file(hasher, file, toolchain.lib_dir);
  }
  for (const fs::path& file :
       files_of<fs::recursive_directory_iterator>(toolchain.include_dir, problems)) {
    add_file(hasher, file, toolchain.include_dir);
  }
  hasher.add(problems);
  return hasher.hex().substr(0, 16);
}

}  // namespace aopt::npu
