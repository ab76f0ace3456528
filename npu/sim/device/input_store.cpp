#include "npu/sim/device/input_store.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <nlohmann/json.hpp>

#include "npu/sim/runtime/driver_expected.hpp"

namespace aopt::npu {

namespace {

status errno_error(const std::string& what) {
  return internal_error("input store: " + what + ": " + std::strerror(errno));
}

// A memfd holding `inputs` back to back, sealed so that no process can change it.
result<unique_fd> sealed_memfd(const std::vector<std::vector<uint8_t>>& inputs) {
  unique_fd fd(::memfd_create("aopt-inputs", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return errno_error("memfd_create");
  for (const std::vector<uint8_t>& bytes : inputs) {
    size_t written = 0;
    while (written < bytes.size()) {
      const ssize_t n = ::write(fd.get(), bytes.data() + written, bytes.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return errno_error("writing the inputs");
      written += static_cast<size_t>(n);
    }
  }
  if (::fcntl(fd.get(), F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) !=
      0) {
    return errno_error("sealing");
  }
  return fd;
}

}  // namespace

result<std::shared_ptr<const unique_fd>> input_store::find_or_draw(const op_spec& op,
                                                                   uint32_t set) {
  // The inputs' shapes, dtypes and ranges and the seed decide the data; nlohmann's dump of the
  // parsed spec is canonical (sorted keys).
  const std::string key = nlohmann::json(op).dump() + "#" + std::to_string(set);
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto* held = entries_.find(key)) return *held;
  const std::vector<std::vector<uint8_t>> inputs = sim::make_inputs(op, set);
  result<unique_fd> made = sealed_memfd(inputs);
  if (!made.ok()) return made.error();
  uint64_t bytes = 0;
  for (const std::vector<uint8_t>& b : inputs) bytes += b.size();
  auto fd = std::make_shared<const unique_fd>(std::move(made).value());
  ++drawn_;
  entries_.put(key, fd, bytes);
  return fd;
}

uint64_t input_store::drawn() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return drawn_;
}

}  // namespace aopt::npu
