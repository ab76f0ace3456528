#include "app/cli_include_folder.hpp"

#include <filesystem>
#include <string>

#include "npu/package_include_dirs.hpp"

namespace aopt::runtime {

CLI::Validator include_folder() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (npu::is_include_pattern(value)) return {};
        std::error_code ec;
        if (std::filesystem::is_directory(value, ec)) return {};
        return "'" + value + "' is not a folder (nor a pattern such as kernels/*/op_kernel)";
      },
      "DIR|PATTERN");
}

}  // namespace aopt::runtime
