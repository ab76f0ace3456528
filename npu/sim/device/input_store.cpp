#include "npu/sim/device/input_store.hpp"

#include <vector>

#include <nlohmann/json.hpp>

#include "npu/sim/device/sealed_memfd.hpp"
#include "npu/sim/runtime/driver_expected.hpp"

namespace aopt::npu {

result<std::shared_ptr<const unique_fd>> input_store::find_or_draw(const op_spec& op,
                                                                   uint32_t set) {
  // The inputs' shapes, dtypes and ranges and the seed decide the data; nlohmann's dump of the
  // parsed spec is canonical (sorted keys).
  const std::string key = nlohmann::json(op).dump() + "#" + std::to_string(set);
  std::lock_guard<std::mutex> lock(mutex_);
  if (const auto* held = entries_.find(key)) return *held;
  const std::vector<std::vector<uint8_t>> inputs = sim::make_inputs(op, set);
  std::vector<byte_span> parts;
  for (const std::vector<uint8_t>& b : inputs) parts.push_back({b.data(), b.size()});
  result<unique_fd> made = sealed_memfd("aopt-inputs", parts);
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
