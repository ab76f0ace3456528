// How the simulated latency of one launch responds to each hardware-profile constant that the
// timing model charges per event: d latency_us / d constant, by a forward difference through the
// timing model itself (replay_core + combine_cores with the constant raised by a small relative
// step). These are the features `aopt calibrate` fits measured latencies with: near the
// profile's values the simulated latency is
//   latency(theta) ~ latency(theta0) + sum_k sensitivity_k (theta_k - theta0_k).
// A difference, not a count, because pipes overlap: an event hidden behind another pipe costs
// nothing on the critical path and gets a sensitivity of 0.
//
// The timing model is piecewise linear in these constants (sums and maxima of per-event costs),
// so the difference is exact unless the step crosses a change of the critical path. Constants it
// uses as thresholds or integers (dma_efficient_burst_bytes, pipe_queue_depth) have no useful
// derivative and are not listed: calibration cannot identify them from latencies.
//
// Thread-safety: free functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hw_profile.hpp"
#include "timing_model.hpp"
#include "trace.hpp"

namespace aopt::sim {

// The constants with a sensitivity, in a fixed order (hw_profile field names).
const std::vector<std::string>& linear_timing_constants();

// The reason calibration cannot fit `constant` from end-to-end latencies, for a hw_profile field
// that is not in linear_timing_constants(); "" for one that is.
std::string why_not_linear(const std::string& constant);

// d latency_us / d constant for every linear timing constant, for a launch of `traces` (one per
// logical block) on `hw`. Constants no instruction of the traces uses get 0 without a replay.
std::vector<std::pair<std::string, double>> latency_sensitivities(
    const std::vector<core_trace>& traces, const hw_profile& hw);
// The same for a launch already timed: `cores` and `base` are its replay_core/combine_cores
// results on `hw` (the trusted checker has them), so only the perturbed replays run; with one
// wave above the HBM floor, only the critical block is replayed.
std::vector<std::pair<std::string, double>> latency_sensitivities(
    const std::vector<core_trace>& traces, const std::vector<core_timing>& cores,
    const kernel_timing& base, const hw_profile& hw);

// The simulated latency of a launch (launch overhead + max(busiest core, HBM floor)).
double simulated_latency_us(const std::vector<core_trace>& traces, const hw_profile& hw);

}  // namespace aopt::sim
