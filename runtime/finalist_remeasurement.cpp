#include "runtime/finalist_remeasurement.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <spdlog/spdlog.h>

namespace aopt::runtime {

namespace {

struct finalist_source {
  int64_t seq = -1;
  double campaign_us = 0;
  std::string tiling, kernel;
};

// The episode's best candidate (`best_seq`, when it is not the baseline) and the other best
// distinct candidates that ran on the device (not from the cascade's simulator stage: "filtered"
// results carry a simulated latency) by their campaign median: `top` in all.
result<std::vector<finalist_source>> top_candidates(storage::store& db, const std::string& campaign,
                                                    const std::string& op, int64_t best_seq,
                                                    uint32_t top) {
  auto records = db.list_candidates(campaign, op);
  if (!records.ok()) return records.error();
  std::vector<finalist_source> all;
  for (const storage::candidate_record& row : *records) {
    auto c = agent::candidate_record_from_json(row.value);
    if (!c.ok()) return c.error().with_context(op + " candidate " + std::to_string(row.seq));
    if (c->stage == 0 || !c->result.ok() || !(c->result.latency_us > 0) ||
        c->result.measurement.verdict == "filtered") {
      continue;
    }
    all.push_back({static_cast<int64_t>(c->seq), c->result.latency_us, c->tiling, c->kernel});
  }
  std::stable_sort(all.begin(), all.end(), [](const finalist_source& a, const finalist_source& b) {
    return a.campaign_us < b.campaign_us;
  });
  std::vector<finalist_source> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (const finalist_source& f : all) {
    if (f.seq == best_seq && top > 0) {
      out.push_back(f);
      seen.insert({f.tiling, f.kernel});
    }
  }
  for (finalist_source& f : all) {
    if (out.size() == top) break;
    if (!seen.insert({f.tiling, f.kernel}).second) continue;
    out.push_back(std::move(f));
  }
  return out;
}

double remeasured_us(const npu::eval_result& r) {
  return r.ok() ? r.latency_us : 0;
}

}  // namespace

nlohmann::json to_json(const operator_finalists& f) {
  nlohmann::json finalists = nlohmann::json::array();
  for (const finalist_result& r : f.finalists) {
    nlohmann::json j = {{"seq", r.seq},
                        {"baseline", r.seq < 0},
                        {"campaign_us", r.campaign_us},
                        {"status", npu::to_string(r.remeasured.status)}};
    if (r.remeasured.ok()) {
      const npu::measurement_stats& m = r.remeasured.measurement;
      j["median_us"] = r.remeasured.latency_us;
      j["q1_us"] = m.q1_us;
      j["q3_us"] = m.q3_us;
      j["iqr_us"] = m.iqr_us;
      j["n"] = m.n;
    } else {
      j["error_kind"] = r.remeasured.error_kind;
      j["message"] = r.remeasured.message;
    }
    finalists.push_back(std::move(j));
  }
  return {{"op", f.op},           {"baseline_us", f.baseline_us},
          {"best_us", f.best_us}, {"best_seq", f.best_seq},
          {"speedup", f.speedup}, {"finalists", std::move(finalists)}};
}

result<std::optional<std::vector<operator_finalists>>> remeasure_finalists(
    npu::device& device, storage::store& db, const std::string& campaign,
    const std::vector<agent::episode_state>& episodes,
    const std::vector<std::shared_ptr<const npu::op_package>>& ops, uint32_t top,
    const npu::eval_options& options) {
  std::map<std::string, const npu::op_package*> by_name;
  for (const auto& op : ops) by_name[op->spec.name] = op.get();
  std::vector<operator_finalists> out;
  bool asked = false;
  for (const agent::episode_state& e : episodes) {
    auto pkg = by_name.find(e.op_name);
    if (pkg == by_name.end() || !(e.baseline_us > 0) || e.baseline_kernel.empty()) continue;
    // The baseline first: a device that does not re-measure says so before any reading.
    std::optional<npu::eval_result> baseline =
        device.remeasure(*pkg->second, e.baseline_tiling, e.baseline_kernel, options);
    if (!baseline) {
      if (asked) return internal_error("the device stopped re-measuring in the middle");
      return std::optional<std::vector<operator_finalists>>();  // the simulator: pointless
    }
    asked = true;
    auto candidates = top_candidates(db, campaign, e.op_name, e.best_seq, top);
    if (!candidates.ok()) return candidates.error();

    operator_finalists f;
    f.op = e.op_name;
    f.finalists.push_back({-1, e.baseline_us, std::move(*baseline)});
    for (const finalist_source& c : *candidates) {
      std::optional<npu::eval_result> r =
          device.remeasure(*pkg->second, c.tiling, c.kernel, options);
      if (!r) return internal_error("the device stopped re-measuring in the middle");
      f.finalists.push_back({c.seq, c.campaign_us, std::move(*r)});
    }
    for (const finalist_result& r : f.finalists) {
      if (!r.remeasured.ok()) {
        spdlog::warn("re-measuring {} candidate {} failed: {}", e.op_name, r.seq,
                     r.remeasured.message);
      }
    }
    // The final best is the campaign's best (chosen by the paired comparisons), re-measured;
    // the other finalists' numbers are context, not a new selection among noisy medians.
    f.baseline_us = remeasured_us(f.finalists.front().remeasured);
    f.best_us = f.baseline_us;
    if (f.finalists.size() > 1 && f.finalists[1].seq == e.best_seq) {
      f.best_us = remeasured_us(f.finalists[1].remeasured);
      f.best_seq = e.best_seq;
    }
    if (f.baseline_us > 0 && f.best_us > 0) f.speedup = f.baseline_us / f.best_us;
    out.push_back(std::move(f));
  }
  return std::optional<std::vector<operator_finalists>>(std::move(out));
}

}  // namespace aopt::runtime
