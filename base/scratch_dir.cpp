#include "base/scratch_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace aopt {

result<scratch_dir> scratch_dir::create(const std::filesystem::path& parent,
                                        const std::string& prefix) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) return internal_error(parent.string() + ": cannot create directory: " + ec.message());
  std::string pattern = (parent / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return internal_error(pattern + ": mkdtemp failed: " + std::strerror(errno));
  }
  scratch_dir dir;
  dir.path_ = pattern;
  return dir;
}

scratch_dir::scratch_dir(scratch_dir&& other) noexcept {
  *this = std::move(other);
}

scratch_dir& scratch_dir::operator=(scratch_dir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
    keep_ = other.keep_;
  }
  return *this;
}

scratch_dir::~scratch_dir() {
  remove();
}

void scratch_dir::remove() noexcept {
  if (path_.empty() || keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  path_.clear();
}

}  // namespace aopt
