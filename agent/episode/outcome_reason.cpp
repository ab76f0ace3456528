#include "agent/episode/outcome_reason.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace aopt::agent {

namespace {

std::string counts(const std::map<std::string, uint32_t>& by_reason) {
  std::string out;
  for (const auto& [reason, n] : by_reason)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", reason, n);
  return out;
}

uint32_t total(const std::map<std::string, uint32_t>& by_reason) {
  uint32_t n = 0;
  for (const auto& [reason, k] : by_reason) n += k;
  return n;
}

std::string note(const episode_state& s, const std::string& key) {
  auto it = s.notes.find(key);
  return it == s.notes.end() ? std::string() : it->second;
}

double relative_iqr(const npu::eval_result& r) {
  const npu::measurement_stats& m = r.measurement;
  return m.measured && m.median_us > 0 ? m.iqr_us / m.median_us : 0.0;
}

// "at 92 % of its bound: little to gain" or "at 40 % of its roofline bound (12.1 us)"; empty
// when the baseline had no bound.
std::string roofline_part(const episode_state& s) {
  if (s.baseline_bound_us <= 0 || s.baseline_roof_fraction <= 0) return {};
  const double pct = 100 * s.baseline_roof_fraction;
  if (s.baseline_roof_fraction >= near_roofline_fraction)
    return fmt::format("at {:.0f} % of its bound: little to gain", pct);
  return fmt::format("at {:.0f} % of its roofline bound ({:.3g} us)", pct, s.baseline_bound_us);
}

}  // namespace

double improvement_resolution(const episode_state& s) {
  return std::max(
      {simulated_latency_resolution, relative_iqr(s.best_result), relative_iqr(s.baseline_result)});
}

bool improved_beyond_resolution(const episode_state& s) {
  if (s.best_us <= 0 || s.baseline_us <= 0 || s.best_us >= s.baseline_us) return false;
  if (s.best_result.measurement.verdict == "faster") return true;
  return s.baseline_us / s.best_us - 1 > improvement_resolution(s);
}

std::string outcome_reason(const episode_state& s) {
  std::vector<std::string> parts;
  if (!s.repaired_from.empty() && s.phase != episode_phase::failed) {
    parts.push_back("baseline repaired from " + s.repaired_from);
  }
  if (const std::string e = note(s, "stage1_error"); !e.empty()) parts.push_back("error: " + e);
  // A best a verifier failed is not reported (episode_state::notes).
  std::string verification_failed;
  for (const std::string& verifier : s.config.verifiers) {
    if (const std::string n = note(s, verifier + "_failed"); !n.empty()) verification_failed = n;
  }
  if (s.phase == episode_phase::failed) {
    parts.push_back(s.failure);
  } else if (s.phase == episode_phase::baseline || s.phase == episode_phase::running) {
    parts.push_back("running");
  } else if (improved_beyond_resolution(s)) {
    parts.insert(parts.begin(), "improved");
    for (const std::string& verifier : s.config.verifiers) {
      if (const std::string v = note(s, verifier); !v.empty()) parts.push_back(v);
    }
    if (const uint32_t rejected = total(s.rejected); rejected > 0) {
      parts.push_back(
          fmt::format("{} rejected before the device ({})", rejected, counts(s.rejected)));
    }
    if (const std::string n = note(s, "gates"); !n.empty()) parts.push_back(n);
    // A strategy that stopped before its budget says so, improved or not (issue 18).
    if (const std::string n = note(s, "early_stop"); !n.empty()) parts.push_back(n);
    if (const std::string n = note(s, "stage2_share"); !n.empty()) parts.push_back(n);
  } else if (!verification_failed.empty()) {
    parts.push_back("not improved: " + verification_failed);
  } else {
    // Near the bound, that is the reason: lead with it.
    const std::string roof = roofline_part(s);
    const bool near_roof = s.baseline_roof_fraction >= near_roofline_fraction && !roof.empty();
    if (near_roof) parts.push_back(roof);
    if (s.best_us > 0 && s.best_us < s.baseline_us) {
      parts.push_back(
          fmt::format("not improved: the best is {:.2f} % faster than the baseline, within the "
                      "measurement's resolution ({:.1f} %)",
                      100 * (s.baseline_us / s.best_us - 1), 100 * improvement_resolution(s)));
    }
    if (const std::string n = note(s, "stage1"); !n.empty()) parts.push_back("Stage I: " + n);
    const uint32_t infeasible = total(s.failures);
    const uint32_t rejected = total(s.rejected);
    if (s.candidates > 0 && infeasible == s.candidates) {
      parts.push_back(fmt::format("every candidate infeasible ({})", counts(s.failures)));
    } else if (infeasible > 0) {
      parts.push_back(fmt::format("{} of {} candidates infeasible ({})", infeasible, s.candidates,
                                  counts(s.failures)));
    }
    if (rejected > 0) {
      parts.push_back(
          fmt::format("{} rejected before the device ({})", rejected, counts(s.rejected)));
    }
    if (const std::string n = note(s, "gates"); !n.empty()) parts.push_back(n);
    if (const std::string n = note(s, "stage2"); !n.empty()) parts.push_back("Stage II: " + n);
    if (const std::string n = note(s, "stage2_share"); !n.empty()) parts.push_back(n);
    if (s.candidates >= s.config.budget && s.config.budget > 0) {
      parts.push_back(
          fmt::format("budget of {} spent without a faster candidate", s.config.budget));
    } else if (s.candidates == 0) {
      parts.push_back("no candidate was evaluated");
    } else {
      parts.push_back(
          fmt::format("{} candidates, none faster; both stages had nothing left", s.candidates));
    }
    if (!near_roof && !roof.empty()) parts.push_back(roof);
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace aopt::agent
