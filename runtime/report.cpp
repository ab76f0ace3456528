#include "runtime/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>

#include "llm/token_ledger_json.hpp"

namespace aopt::runtime {
namespace fs = std::filesystem;

namespace {

// The episodes' outcomes; where the finalists were re-measured, an operator's final baseline,
// best and speedup are the re-measurement's.
std::vector<agent::operator_outcome> outcomes(const report_data& d) {
  std::map<std::string, const operator_finalists*> finals;
  if (d.finalists) {
    for (const operator_finalists& f : *d.finalists) finals[f.op] = &f;
  }
  std::vector<agent::operator_outcome> out;
  for (const agent::episode_state& s : d.episodes) {
    agent::operator_outcome o = agent::outcome_of(s);
    auto it = finals.find(s.op_name);
    if (it != finals.end() && it->second->speedup > 0) {
      o.baseline_us = it->second->baseline_us;
      o.best_us = it->second->best_us;
      o.speedup = it->second->speedup;
    }
    out.push_back(std::move(o));
  }
  return out;
}

// Says where the final numbers come from, with the re-measurement per operator.
std::string finalists_markdown(const report_data& d) {
  if (!d.finalists) {
    return d.simulated ? "Finalists were not re-measured: the simulator's latency is "
                         "deterministic, so a re-measurement would change nothing.\n\n"
                       : "";
  }
  std::string md =
      "Final numbers: at the campaign's end each operator's baseline and best finalists were "
      "re-measured one after another with the finalist sample count; the baseline, best and "
      "speedup of every operator in this report are the re-measured baseline and campaign "
      "best.\n\n"
      "| operator | baseline us (IQR, n) | best us (IQR, n) | best candidate | final speedup | "
      "campaign speedup |\n|---|---|---|---|---|---|\n";
  std::map<std::string, const agent::episode_state*> episodes;
  for (const agent::episode_state& s : d.episodes) episodes[s.op_name] = &s;
  auto cell = [](const finalist_result* r) {
    if (r == nullptr) return std::string("-");
    if (!r->remeasured.ok()) return "failed (" + r->remeasured.error_kind + ")";
    const npu::measurement_stats& m = r->remeasured.measurement;
    return fmt::format("{:.3f} ({:.3f}, {})", r->remeasured.latency_us, m.iqr_us, m.n);
  };
  for (const operator_finalists& f : *d.finalists) {
    const finalist_result* baseline = f.finalists.empty() ? nullptr : &f.finalists.front();
    const finalist_result* best = nullptr;
    for (const finalist_result& r : f.finalists) {
      if (r.seq == f.best_seq && r.seq >= 0) best = &r;
    }
    auto e = episodes.find(f.op);
    const double campaign = e != episodes.end() && e->second->best_us > 0
                                ? e->second->baseline_us / e->second->best_us
                                : 0;
    md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", f.op, cell(baseline),
                      best ? cell(best) : cell(baseline),
                      best ? "#" + std::to_string(best->seq) : std::string("baseline"),
                      f.speedup > 0 ? fmt::format("{:.3f}x", f.speedup) : std::string("-"),
                      campaign > 0 ? fmt::format("{:.3f}x", campaign) : std::string("-"));
  }
  return md + "\n";
}

std::string unit(const report_data& d) {
  return d.simulated ? "simulated us" : "us";
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Fig. 2: the fraction of operators whose speedup exceeds x, as a step curve.
std::string speedup_cdf_svg(const std::vector<agent::operator_outcome>& ops) {
  std::vector<double> speedups;
  for (const auto& o : ops) {
    if (o.phase != "failed" && o.baseline_us > 0) speedups.push_back(o.speedup);
  }
  const int w = 520, h = 300, left = 50, bottom = 40, top = 15, right = 15;
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' class='plot'>", w, h);
  if (speedups.empty()) return svg + "<text x='20' y='40'>no operators</text></svg>";
  std::sort(speedups.begin(), speedups.end());
  const double x_max = std::max(2.0, speedups.back() * 1.05);
  auto sx = [&](double x) { return left + (x - 0.0) / x_max * (w - left - right); };
  auto sy = [&](double y) { return h - bottom - y * (h - bottom - top); };
  svg += fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#333'/>", left, sy(0),
                     w - right, sy(0));
  svg += fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#333'/>", left, sy(0), left,
                     sy(1));
  for (double x = 0; x <= x_max + 1e-9; x += 0.5) {
    svg += fmt::format("<text x='{:.1f}' y='{}' font-size='11' text-anchor='middle'>{:.1f}</text>",
                       sx(x), h - bottom + 15, x);
  }
  for (double y = 0; y <= 1.0001; y += 0.25) {
    svg += fmt::format("<text x='{}' y='{:.1f}' font-size='11' text-anchor='end'>{:.0f}%</text>",
                       left - 5, sy(y) + 4, y * 100);
  }
  svg += fmt::format(
      "<line x1='{:.1f}' y1='{}' x2='{:.1f}' y2='{}' stroke='#aaa' "
      "stroke-dasharray='4'/>",
      sx(1.0), sy(0), sx(1.0), sy(1));
  // Survival curve: fraction with speedup > x.
  std::string path = fmt::format("M{:.1f},{:.1f}", sx(0), sy(1));
  const double n = static_cast<double>(speedups.size());
  for (size_t i = 0; i < speedups.size(); ++i) {
    path += fmt::format(" H{:.1f} V{:.1f}", sx(speedups[i]), sy((n - i - 1) / n));
  }
  path += fmt::format(" H{:.1f}", sx(x_max));
  svg += "<path d='" + path + "' fill='none' stroke='#1f77b4' stroke-width='2'/>";
  svg += fmt::format("<text x='{}' y='{}' font-size='12' text-anchor='middle'>speedup p</text>",
                     (w + left) / 2, h - 5);
  svg += fmt::format(
      "<text x='12' y='{}' font-size='12' transform='rotate(-90 12 {})' "
      "text-anchor='middle'>fast_p</text>",
      h / 2, h / 2);
  return svg + "</svg>";
}

// Fig. 4: best latency (relative to the baseline) against evaluations, stage switches marked.
std::string trajectory_svg(const agent::episode_state& s) {
  const int w = 260, h = 150, left = 40, bottom = 25, top = 20, right = 10;
  std::string svg = fmt::format(
      "<svg xmlns='http://www.w3.org/2000/svg' width='{}' height='{}' class='traj'>", w, h);
  svg += fmt::format("<text x='{}' y='13' font-size='11'>{}</text>", left, html_escape(s.op_name));
  if (s.trajectory.empty() || s.baseline_us <= 0) return svg + "</svg>";
  const double x_max = std::max<double>(1, s.trajectory.back().evaluation);
  double y_min = 1.0;
  for (const auto& p : s.trajectory) y_min = std::min(y_min, p.best_us / s.baseline_us);
  y_min = std::max(0.0, y_min - 0.05);
  auto sx = [&](double x) { return left + x / x_max * (w - left - right); };
  auto sy = [&](double y) { return top + (1.0 - y) / (1.0 - y_min + 1e-9) * (h - bottom - top); };
  for (size_t i = 1; i < s.trajectory.size(); ++i) {
    if (s.trajectory[i].stage != s.trajectory[i - 1].stage && s.trajectory[i - 1].stage != 0) {
      const double x = sx(s.trajectory[i].evaluation - 0.5);
      svg += fmt::format(
          "<line x1='{:.1f}' y1='{}' x2='{:.1f}' y2='{}' stroke='#d62728' "
          "stroke-dasharray='3' stroke-width='0.8'/>",
          x, top, x, h - bottom);
    }
  }
  std::string path;
  for (const auto& p : s.trajectory) {
    path += fmt::format("{}{:.1f},{:.1f}", path.empty() ? "M" : " L", sx(p.evaluation),
                        sy(p.best_us / s.baseline_us));
  }
  svg += "<path d='" + path + "' fill='none' stroke='#2ca02c' stroke-width='1.8'/>";
  svg += fmt::format("<line x1='{}' y1='{}' x2='{}' y2='{}' stroke='#333'/>", left, h - bottom,
                     w - right, h - bottom);
  svg += fmt::format("<text x='{}' y='{:.1f}' font-size='10' text-anchor='end'>1.00</text>",
                     left - 3, sy(1.0) + 3);
  svg += fmt::format("<text x='{}' y='{:.1f}' font-size='10' text-anchor='end'>{:.2f}</text>",
                     left - 3, sy(y_min) + 3, y_min);
  svg += fmt::format("<text x='{}' y='{}' font-size='10' text-anchor='end'>{:.0f} evals</text>",
                     w - right, h - 8, x_max);
  return svg + "</svg>";
}

// Accepted candidates by origin over all episodes ("tuple:<id>", "tuple:<id>+rule:<name>",
// "mutator", "llm"): which experience tuples (and rules transferring them) produced speedups.
struct origin_tally {
  uint32_t accepted = 0;
  std::vector<std::string> operators;
};

std::map<std::string, origin_tally> accepted_origins(const report_data& d) {
  std::map<std::string, origin_tally> out;
  for (const agent::episode_state& s : d.episodes) {
    for (const auto& [origin, n] : s.accepted_by_origin) {
      origin_tally& t = out[origin];
      t.accepted += n;
      t.operators.push_back(s.op_name);
    }
  }
  return out;
}

std::string failures_text(const std::map<std::string, uint32_t>& failures) {
  std::string out;
  for (const auto& [kind, n] : failures)
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", kind, n);
  return out.empty() ? "-" : out;
}

// The median of `values` (0 when empty).
double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct roofline_medians {
  double baseline = 0;
  double best = 0;
  uint32_t operators = 0;
};

// Median roofline fraction of baseline and best, per level, over operators with a valid one.
std::map<int, roofline_medians> roofline_by_level(const std::vector<agent::operator_outcome>& ops) {
  std::map<int, std::pair<std::vector<double>, std::vector<double>>> fractions;
  for (const auto& o : ops) {
    if (o.phase == "failed" || o.best_fraction <= 0) continue;
    fractions[o.level].first.push_back(o.baseline_fraction);
    fractions[o.level].second.push_back(o.best_fraction);
  }
  std::map<int, roofline_medians> out;
  for (auto& [level, f] : fractions) {
    out[level] = {median(f.first), median(f.second), static_cast<uint32_t>(f.first.size())};
  }
  return out;
}

std::string roofline_text(const agent::operator_outcome& o) {
  if (o.bound_us <= 0) return "-";
  return fmt::format("{:.2f} us; {:.0f} % / {:.0f} %", o.bound_us, 100 * o.baseline_fraction,
                     100 * o.best_fraction);
}

std::string cost_text(const llm::token_ledger& usage, const llm::ledger_entry& e) {
  return usage.prices().empty() ? "-" : fmt::format("{:.4f}", usage.cost(e));
}

// Per operator and role: what the LLM was asked and what the endpoint billed for it.
std::string llm_usage_markdown(const llm::token_ledger& usage) {
  std::string md =
      "\n## LLM usage\n\nTokens used (answers consumed, replays included) and billed (reported "
      "by the endpoint for calls sent).\n\n| operator | role | calls | from cache | failed | used "
      "prompt | used completion | billed prompt | billed completion | cost |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  auto row = [&](const std::string& op, const std::string& role, const llm::ledger_entry& e) {
    md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", op, role, e.calls,
                      e.cache_hits, e.failures, e.used.prompt_tokens, e.used.completion_tokens,
                      e.billed.prompt_tokens, e.billed.completion_tokens, cost_text(usage, e));
  };
  for (const auto& [who, entry] : usage.entries()) row(who.op, who.role, entry);
  row("**total**", "", usage.total());
  return md;
}

}  // namespace

std::string llm_usage_text(const llm::token_ledger& usage) {
  const llm::ledger_entry t = usage.total();
  std::string text = fmt::format(
      "LLM: {} calls ({} from cache, {} failed), tokens used {}+{}, billed {}+{} "
      "(prompt+completion)",
      t.calls, t.cache_hits, t.failures, t.used.prompt_tokens, t.used.completion_tokens,
      t.billed.prompt_tokens, t.billed.completion_tokens);
  if (!usage.prices().empty()) text += fmt::format(", cost {:.4f}", usage.cost(t));
  return text + "\n";
}

nlohmann::json report_json(const report_data& d) {
  std::vector<agent::operator_outcome> ops = outcomes(d);
  agent::campaign_metrics m = agent::compute_metrics(ops);
  nlohmann::json by_level = nlohmann::json::object();
  for (const auto& [level, lm] : agent::metrics_by_level(ops)) by_level[std::to_string(level)] = lm;
  for (const auto& [level, r] : roofline_by_level(ops)) {
    by_level[std::to_string(level)]["median_roofline_fraction"] = {
        {"baseline", r.baseline}, {"best", r.best}, {"operators", r.operators}};
  }
  nlohmann::json trajectories = nlohmann::json::object();
  for (const agent::episode_state& s : d.episodes) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& p : s.trajectory) points.push_back({p.evaluation, p.best_us, p.stage});
    trajectories[s.op_name] = points;
  }
  nlohmann::json j = {{"campaign", d.campaign},
                      {"strategy", d.strategy},
                      {"policies", d.policies},
                      {"device", d.device},
                      {"latency_unit", unit(d)},
                      {"geomean_speedup", m.geomean_speedup},
                      {"fast_p", m.fast_p},
                      {"evaluations", m.evaluations},
                      {"failed_baselines", m.failed_baselines},
                      {"wall_seconds", d.wall_seconds},
                      {"operators", ops},
                      {"by_level", by_level},
                      {"trajectories", trajectories}};
  nlohmann::json origins = nlohmann::json::object();
  for (const auto& [origin, t] : accepted_origins(d)) {
    origins[origin] = {{"accepted", t.accepted}, {"operators", t.operators}};
  }
  j["accepted_by_origin"] = origins;
  if (d.llm_usage) j["llm_usage"] = llm::to_json(*d.llm_usage);
  if (d.cascade) j["cascade"] = npu::to_json(*d.cascade);
  if (d.finalists) {
    nlohmann::json finals = nlohmann::json::array();
    for (const operator_finalists& f : *d.finalists) finals.push_back(to_json(f));
    j["finalists"] = finals;
    j["final_numbers"] = "end-of-campaign re-measurement";
  }
  return j;
}

std::string report_markdown(const report_data& d) {
  std::vector<agent::operator_outcome> ops = outcomes(d);
  agent::campaign_metrics m = agent::compute_metrics(ops);
  std::string md = fmt::format("# aopt campaign {}\n\n", d.campaign);
  md += fmt::format("Strategy `{}`; policies: {}; device `{}`; latencies in {}.\n\n", d.strategy,
                    d.policies, d.device, unit(d));
  md += fmt::format(
      "**Geometric-mean speedup {:.3f}x** over {} operators; fast_1.0 {:.1f} %, fast_1.2 "
      "{:.1f} %, fast_1.4 {:.1f} %, fast_2.0 {:.1f} %; {} evaluations in {:.0f} s.\n\n",
      m.geomean_speedup, m.operators, 100 * m.fast_p["1.0"], 100 * m.fast_p["1.2"],
      100 * m.fast_p["1.4"], 100 * m.fast_p["2.0"], m.evaluations, d.wall_seconds);
  if (d.cascade) {
    const npu::cascade_counts& c = *d.cascade;
    md += fmt::format(
        "Cascade (every run of the campaign): {} candidates; the simulator stopped {} (failed) and "
        "{} (predicted "
        "slower than the best by more than the margin); {} went to the NPU, {} of them failed "
        "there.\n\n",
        c.evaluated, c.simulator_failed, c.filtered, c.hardware, c.hardware_failed);
  }
  md += finalists_markdown(d);
  const std::map<int, roofline_medians> roofs = roofline_by_level(ops);
  md +=
      "| level | operators | GM speedup | fast_1.0 | fast_1.2 | fast_1.4 | fast_2.0 | median "
      "roofline fraction baseline / best |\n";
  md += "|---|---|---|---|---|---|---|---|\n";
  for (auto& [level, lm] : agent::metrics_by_level(ops)) {
    auto r = roofs.find(level);
    md += fmt::format(
        "| {} | {} | {:.3f} | {:.1f} % | {:.1f} % | {:.1f} % | {:.1f} % | {} |\n", level,
        lm.operators, lm.geomean_speedup, 100 * lm.fast_p["1.0"], 100 * lm.fast_p["1.2"],
        100 * lm.fast_p["1.4"], 100 * lm.fast_p["2.0"],
        r == roofs.end()
            ? std::string("-")
            : fmt::format("{:.0f} % / {:.0f} %", 100 * r->second.baseline, 100 * r->second.best));
  }
  md +=
      "\nRoofline: the bound (launch overhead + max(memory, vector) bound) and the fraction of it "
      "the baseline / the best achieved.\n";
  md +=
      "\n| operator | level | baseline | best | speedup | evaluations | failures | roofline | "
      "reason |\n";
  md += "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& o : ops) {
    if (o.phase == "failed") {
      md += fmt::format("| {} | {} | failed: {} | | | {} | {} | - | {} |\n", o.name, o.level,
                        o.failure, o.evaluations, failures_text(o.failures), o.reason);
      continue;
    }
    md += fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.3f}x | {} | {} | {} | {} |\n", o.name,
                      o.level, o.baseline_us, o.best_us, o.speedup, o.evaluations,
                      failures_text(o.failures), roofline_text(o), o.reason);
  }
  const std::map<std::string, origin_tally> origins = accepted_origins(d);
  if (!origins.empty()) {
    md +=
        "\n## Where the speedups came from\n\nAccepted (faster) candidates by origin: "
        "`tuple:<id>` a retrieved experience tuple's CodeDiff, `tuple:<id>+rule:<name>` the "
        "tuple transferred by a rule, several joined by ` & ` when applied together; "
        "`mutator` a tiling from Stage I, `llm` an LLM rewrite.\n\n"
        "| origin | accepted | operators |\n|---|---|---|\n";
    for (const auto& [origin, t] : origins) {
      std::string names;
      for (const std::string& op : t.operators) names += (names.empty() ? "" : ", ") + op;
      md += fmt::format("| `{}` | {} | {} |\n", origin, t.accepted, names);
    }
  }
  if (d.llm_usage) md += llm_usage_markdown(*d.llm_usage);
  return md;
}

std::string report_html(const report_data& d) {
  std::vector<agent::operator_outcome> ops = outcomes(d);
  agent::campaign_metrics m = agent::compute_metrics(ops);
  std::string html = "<!doctype html><html><head><meta charset='utf-8'><title>aopt campaign " +
                     html_escape(d.campaign) +
                     "</title><style>body{font-family:sans-serif;margin:24px;color:#222}"
                     "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 8px;"
                     "text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}"
                     ".grid{display:flex;flex-wrap:wrap;gap:8px}</style></head><body>";
  html += "<h1>aopt campaign " + html_escape(d.campaign) + "</h1>";
  html += fmt::format(
      "<p>Strategy <b>{}</b>; policies: {}; device {}; latencies in {}.</p>"
      "<p><b>GM speedup {:.3f}x</b> over {} operators &middot; fast_1.0 {:.1f} % &middot; "
      "fast_1.2 {:.1f} % &middot; fast_1.4 {:.1f} % &middot; fast_2.0 {:.1f} % &middot; {} "
      "evaluations in {:.0f} s</p>",
      html_escape(d.strategy), html_escape(d.policies), html_escape(d.device), unit(d),
      m.geomean_speedup, m.operators, 100 * m.fast_p["1.0"], 100 * m.fast_p["1.2"],
      100 * m.fast_p["1.4"], 100 * m.fast_p["2.0"], m.evaluations, d.wall_seconds);
  if (d.llm_usage) html += "<p>" + html_escape(llm_usage_text(*d.llm_usage)) + "</p>";
  html += "<h2>Speedup distribution</h2>" + speedup_cdf_svg(ops);
  html +=
      "<h2>Operators</h2><table><tr><th>operator</th><th>level</th><th>baseline</th>"
      "<th>best</th><th>speedup</th><th>evaluations</th><th>failures</th>"
      "<th>roofline bound; fraction baseline / best</th><th>reason</th></tr>";
  for (const auto& o : ops) {
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{:.2f}</td><td>{:.2f}</td><td>{:.3f}x</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td style='text-align:left'>{}</td></tr>",
        html_escape(o.name), o.level, o.baseline_us, o.best_us, o.speedup, o.evaluations,
        html_escape(o.phase == "failed" ? "baseline failed: " + o.failure
                                        : failures_text(o.failures)),
        html_escape(roofline_text(o)), html_escape(o.reason));
  }
  html +=
      "</table><h2>Roofline by level</h2><table><tr><th>level</th><th>operators</th>"
      "<th>median fraction baseline</th><th>median fraction best</th></tr>";
  for (const auto& [level, r] : roofline_by_level(ops)) {
    html += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.0f} %</td><td>{:.0f} %</td></tr>", level,
                        r.operators, 100 * r.baseline, 100 * r.best);
  }
  html +=
      "</table><h2>Trajectories</h2><p>Best latency relative to the baseline against "
      "evaluations; dashed red lines mark stage switches.</p><div class='grid'>";
  for (const agent::episode_state& s : d.episodes) html += trajectory_svg(s);
  return html + "</div></body></html>\n";
}

status write_reports(const report_data& data, const fs::path& dir,
                     const std::vector<std::string>& formats) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return internal_error("report dir " + dir.string() + ": " + ec.message());
  for (const std::string& format : formats) {
    std::string name, text;
    if (format == "json") {
      name = "report.json";
      text = report_json(data).dump(2) + "\n";
    } else if (format == "markdown") {
      name = "report.md";
      text = report_markdown(data);
    } else if (format == "html") {
      name = "report.html";
      text = report_html(data);
    } else {
      return invalid_argument("report.formats: unknown format '" + format + "'");
    }
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) return internal_error("writing " + (dir / name).string());
  }
  return {};
}

}  // namespace aopt::runtime
