#include "support/temp_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

namespace aopt::testing {

temp_dir::temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "aopt-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
  path_ = pattern;
}

temp_dir::~temp_dir() {
  std::error_code ignored;  // a destructor cannot report; a leftover temp dir is harmless
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace aopt::testing
