// The input sets of recent operators, each drawn once in the trusted process and kept in a memfd
// sealed against writing, growing and shrinking (npu/sim/runtime/shared_inputs.hpp): candidate
// and probe processes map them instead of drawing their inputs again, which took about two thirds
// of a candidate's run. Keyed by the operator's spec (shapes, dtypes, ranges, seed) and the set
// number; bounded by bytes, the oldest entry first. A descriptor stays valid while a run holds it,
// after its entry was evicted.
//
// Thread-safety: every method may be called from several threads at once. A set is drawn once,
// however many evaluations ask for it together (they wait for that draw), and outside the store's
// lock: drawing an operator's sets takes most of a second, during which evaluations of other
// operators find theirs.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "base/status.hpp"
#include "base/unique_fd.hpp"
#include "npu/protocol/op_spec.hpp"
#include "npu/sim/device/bounded_cache.hpp"

namespace aopt::npu {

class input_store {
 public:
  explicit input_store(uint64_t max_bytes) : entries_(max_bytes) {}

  // The sealed descriptor of input set `set` of `op`, drawn now when the store does not hold it.
  // internal error when the memfd cannot be made, filled or sealed.
  result<std::shared_ptr<const unique_fd>> find_or_draw(const op_spec& op, uint32_t set);

  // How many input sets were drawn since construction.
  uint64_t drawn() const;

 private:
  using drawn_set = result<std::shared_ptr<const unique_fd>>;

  mutable std::mutex mutex_;
  bounded_cache<std::shared_ptr<const unique_fd>> entries_;
  std::map<std::string, std::shared_future<drawn_set>> drawing_;  // sets being drawn now
  uint64_t drawn_ = 0;
};

}  // namespace aopt::npu
