#include "npu/cann/drift_board.hpp"

namespace aopt::npu {

void drift_board::publish(const drift_reading& r) {
  std::lock_guard<std::mutex> lock(mutex_);
  latest_[{r.op, r.device_id}] = r;
}

std::vector<drift_reading> drift_board::readings() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<drift_reading> out;
  for (const auto& [key, r] : latest_) out.push_back(r);
  return out;
}

}  // namespace aopt::npu
