// A fresh, uniquely named directory under the system temporary folder, removed with everything
// in it when the fixture is destroyed. Thread-safety: one owner.
#pragma once

#include <filesystem>

namespace aopt::testing {

class temp_dir {
 public:
  temp_dir();
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace aopt::testing
