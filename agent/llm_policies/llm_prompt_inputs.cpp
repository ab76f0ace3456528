#include "agent/llm_policies/llm_prompt_inputs.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "agent/kernel_text/tunables.hpp"

namespace aopt::agent {

std::string describe_op(const npu::op_package& op) {
  return nlohmann::json(op.spec).dump(2);
}

std::string describe_latency(double latency_us, bool simulated) {
  return fmt::format("{:.2f} us ({})", latency_us,
                     simulated ? "simulated" : "measured on hardware");
}

std::string describe_result(const npu::eval_result& r) {
  const nlohmann::json j = r;
  if (!r.ok()) {
    std::string text = fmt::format("status: {}", npu::to_string(r.status));
    if (!r.error_kind.empty()) text += " (" + r.error_kind + ")";
    if (!r.message.empty()) text += "\nmessage: " + r.message;
    return text;
  }
  return fmt::format("status: ok\nlatency: {}\nprofile:\n{}\nroofline:\n{}",
                     describe_latency(r.latency_us, r.latency_is_simulated),
                     j.at("profile").dump(2), j.at("roofline").dump(2));
}

std::string describe_tunable_values(const std::string& tiling) {
  result<std::vector<tunable>> tunables = parse_tunables(tiling);
  if (!tunables.ok()) return "";
  std::string text;
  for (const auto& [name, value] : current_values(*tunables)) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{}={}", name, value);
  }
  return text;
}

std::string describe_history(const std::vector<tiling_trial>& history) {
  if (history.empty()) return "none yet";
  std::string text;
  for (const tiling_trial& trial : history) {
    std::string values = describe_tunable_values(trial.tiling);
    if (values.empty()) values = "(no tunables)";
    if (trial.latency_us) {
      text += fmt::format("- {}: {:.2f} us", values, *trial.latency_us);
      if (!trial.summary.empty()) text += "  [" + trial.summary + "]";
    } else {
      text += fmt::format("- {}: failed ({}{})", values,
                          trial.summary.empty() ? "infeasible" : trial.summary,
                          trial.detail.empty() ? "" : ": " + trial.detail);
    }
    text += '\n';
  }
  return text;
}

std::string describe_tuples(const std::vector<tuple_ref>& tuples) {
  if (tuples.empty())
    return "None retrieved: rely on the diagnosis, the profile and the hardware rules.";
  std::string text;
  size_t n = 0;
  for (const tuple_ref& t : tuples) {
    auto field = [&](const char* key) {
      auto it = t.tuple.find(key);
      return it != t.tuple.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    text += fmt::format(
        "### {}. {} (score {:.3f})\nBottleneck: {}\nDescription: {}\n```diff\n{}```\n\n", ++n,
        field("title"), t.score, field("bottleneck"), field("description"), field("code_diff"));
  }
  return text;
}

std::string describe_diagnosis(const diagnosis& d) {
  std::string text = d.query;
  if (!d.tags.empty()) {
    text += "\nTags:";
    for (const std::string& tag : d.tags) text += " " + tag;
  }
  return text;
}

std::string describe_annotations(const std::vector<annotation>& notes) {
  if (notes.empty()) return {};
  std::string text = "\n\n## What the annotating roles say about this kernel";
  for (const annotation& a : notes) text += "\n- " + a.role + ": " + a.text;
  return text;
}

std::string describe_vetoes(const std::vector<veto_note>& vetoes) {
  if (vetoes.empty()) return {};
  std::string text =
      "\n\n## Rewrites vetoed before the device (do not propose them again; mind the reasons)";
  for (const veto_note& v : vetoes) {
    text += "\n- " + v.origin + ", vetoed by " + v.gate + ": " + v.reason;
  }
  return text;
}

}  // namespace aopt::agent
