#include "npu/sim/device/input_store.hpp"

#include <nlohmann/json.hpp>

#include "npu/sim/device/sealed_memfd.hpp"
#include "npu/sim/runtime/driver_expected.hpp"

namespace aopt::npu {

result<std::shared_ptr<const unique_fd>> input_store::find_or_draw(const op_spec& op,
                                                                   uint32_t set) {
  // The inputs' shapes, dtypes and ranges and the seed decide the data; nlohmann's dump of the
  // parsed spec is canonical (sorted keys).
  const std::string key = nlohmann::json(op).dump() + "#" + std::to_string(set);
  std::promise<drawn_set> drawing;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (const auto* held = entries_.find(key)) return *held;
    if (auto in_flight = drawing_.find(key); in_flight != drawing_.end()) {
      const std::shared_future<drawn_set> other = in_flight->second;
      lock.unlock();
      return other.get();
    }
    drawing_.emplace(key, drawing.get_future().share());
  }
  uint64_t bytes = 0;
  for (const tensor_spec& t : op.inputs) bytes += t.bytes();
  result<unique_fd> made = sealed_memfd_filled(
      "aopt-inputs", bytes, [&](uint8_t* out) { sim::make_inputs_into(op, set, out); });
  drawn_set out = made.ok() ? drawn_set(std::make_shared<const unique_fd>(std::move(made).value()))
                            : drawn_set(made.error());
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (out.ok()) {
      ++drawn_;
      entries_.put(key, *out, bytes);
    }
    drawing_.erase(key);
  }
  drawing.set_value(out);
  return out;
}

uint64_t input_store::drawn() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return drawn_;
}

}  // namespace aopt::npu
