#include "npu/sim/device/file_stamp.hpp"

#include <fmt/format.h>

namespace aopt::npu {

std::string file_stamp(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::canonical(path, ec);
  if (ec) return path.string() + ":missing";
  const auto size = std::filesystem::file_size(resolved, ec);
  const auto time = std::filesystem::last_write_time(resolved, ec).time_since_epoch().count();
  return fmt::format("{}:{}:{}", resolved.string(), size, static_cast<long long>(time));
}

}  // namespace aopt::npu
