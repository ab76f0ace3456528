// The end-of-campaign re-measurement of finalists ("finalists re-measured with more samples"):
// on a hardware device, each operator's baseline, its best candidate and its other best
// candidates by campaign median (`top` candidates in all) are evaluated again one after another (so
// in the same period of the machine) and measured with the protocol's finalist sample count
// (device::remeasure). The report's final latencies and speedups are these numbers. On the
// simulator, whose latency is deterministic, nothing is re-measured (nullopt): it would change
// nothing.
//
// Thread-safety: free functions; the device is called from this thread only.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/episode_state.hpp"
#include "base/status.hpp"
#include "npu/device.hpp"
#include "storage/store.hpp"

namespace aopt::runtime {

struct finalist_result {
  int64_t seq = -1;        // the candidate's sequence number in its episode; -1 = the baseline
  double campaign_us = 0;  // its median when the campaign measured it
  npu::eval_result remeasured;
};

struct operator_finalists {
  std::string op;
  // The baseline first, then the campaign's best, then the others by campaign median.
  std::vector<finalist_result> finalists;
  // From the re-measurement alone: the baseline's median, the median of the campaign's best
  // candidate (best_seq; the baseline's when the baseline stayed best) and their ratio; 0 when
  // either re-measurement failed.
  double baseline_us = 0;
  double best_us = 0;
  int64_t best_seq = -1;
  double speedup = 0;
};

nlohmann::json to_json(const operator_finalists& f);

// Re-measures the finalists of every episode in `episodes` (their candidates are read from
// `db`; `ops` holds the operator packages by name). nullopt when `device` does not re-measure.
// Episodes without an ok baseline, or whose package is missing, are skipped.
result<std::optional<std::vector<operator_finalists>>> remeasure_finalists(
    npu::device& device, storage::store& db, const std::string& campaign,
    const std::vector<agent::episode_state>& episodes,
    const std::vector<std::shared_ptr<const npu::op_package>>& ops, uint32_t top,
    const npu::eval_options& options);

}  // namespace aopt::runtime
