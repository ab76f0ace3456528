#include "app/cli_numbers.hpp"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace aopt::runtime {

CLI::Validator whole_number_at_least(uint64_t minimum) {
  const std::string description = minimum == 0
                                      ? "a whole number of 0 or more"
                                      : "a whole number of " + std::to_string(minimum) + " or more";
  return CLI::Validator(
      [minimum, description](std::string& value) -> std::string {
        const bool digits =
            !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) return "'" + value + "' is not " + description;
        errno = 0;
        const unsigned long long parsed = std::strtoull(value.c_str(), nullptr, 10);
        if (errno == ERANGE) return "'" + value + "' is too large";
        if (parsed < minimum) return "'" + value + "' is not " + description;
        return {};
      },
      "WHOLE>=" + std::to_string(minimum));
}

}  // namespace aopt::runtime
