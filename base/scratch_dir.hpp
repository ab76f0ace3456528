// A uniquely named directory that removes itself (and everything in it) when destroyed,
// unless keep() was called. Move-only; not thread-safe (one owner).
#pragma once

#include <filesystem>
#include <string>

#include "base/status.hpp"

namespace aopt {

class scratch_dir {
 public:
  // Creates <parent>/<prefix>XXXXXX (the parent too, when missing).
  static result<scratch_dir> create(const std::filesystem::path& parent, const std::string& prefix);

  scratch_dir(scratch_dir&& other) noexcept;
  scratch_dir& operator=(scratch_dir&& other) noexcept;
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  ~scratch_dir();

  const std::filesystem::path& path() const { return path_; }
  // Leaves the directory on disk (to inspect a failed evaluation).
  void keep() { keep_ = true; }

 private:
  scratch_dir() = default;
  void remove() noexcept;

  std::filesystem::path path_;  // empty once moved from
  bool keep_ = false;
};

}  // namespace aopt
