#include "npu/profile_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

constexpr const char* assumed_marker = "assumed";
// Relative ridge weight: only breaks exact collinearity, far below any real signal.
constexpr double ridge = 1e-9;

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

result<std::vector<std::string>> read_lines(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return not_found(file.string() + ": cannot open");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

result<toml::table> parse(const fs::path& file) {
  try {
    return toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    return invalid_argument(fmt::format("{}:{}: {}", file.string(), e.source().begin.line,
                                        std::string(e.description())));
  }
}

// Every value of the profile (top level and one table deep) with its key.
template <class F>
void for_each_value(const toml::table& root, F&& f) {
  for (const auto& [key, node] : root) {
    if (const toml::table* t = node.as_table()) {
      for (const auto& [k, n] : *t) f(std::string(k.str()), n);
    } else {
      f(std::string(key.str()), node);
    }
  }
}

double per_cycle(const sim::hw_profile& hw) {
  return 1.0 / (hw.clock_ghz * 1e3);  // microseconds per cycle
}

double per_core(double total, const eval_profile& p) {
  return total / std::max<uint32_t>(1, p.block_dim);
}

// Solves a x = b (n x n, row-major) by Gaussian elimination with partial pivoting; false when
// singular.
bool solve(std::vector<double> a, std::vector<double> b, std::vector<double>& x) {
  const size_t n = b.size();
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r) {
      if (std::abs(a[r * n + c]) > std::abs(a[pivot * n + c])) pivot = r;
    }
    if (std::abs(a[pivot * n + c]) < 1e-300) return false;
    for (size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[pivot * n + k]);
    std::swap(b[c], b[pivot]);
    for (size_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      for (size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  x.assign(n, 0);
  for (size_t c = n; c-- > 0;) {
    double s = b[c];
    for (size_t k = c + 1; k < n; ++k) s -= a[c * n + k] * x[k];
    x[c] = s / a[c * n + c];
  }
  return true;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double average = (static_cast<double>(i) + static_cast<double>(j)) / 2 + 1;
    for (size_t k = i; k <= j; ++k) r[order[k]] = average;
    i = j + 1;
  }
  return r;
}

}  // namespace

const std::vector<std::string>& calibratable_constants() {
  static const std::vector<std::string> names = {"launch_base_us", "dma_burst_overhead_cycles",
                                                 "vec_startup_cycles", "issue_cycles"};
  return names;
}

double calibration_feature(const std::string& constant, const eval_profile& p,
                           const sim::hw_profile& hw) {
  if (constant == "launch_base_us") return 1.0;
  if (constant == "dma_burst_overhead_cycles") {
    return per_core(static_cast<double>(p.dma_bursts), p) * per_cycle(hw);
  }
  if (constant == "vec_startup_cycles") {
    return per_core(static_cast<double>(p.vector_instructions), p) * per_cycle(hw);
  }
  if (constant == "issue_cycles") {
    return per_core(static_cast<double>(p.trace_instructions), p) * per_cycle(hw);
  }
  return 0;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const std::vector<double> ra = ranks(a);
  const std::vector<double> rb = ranks(b);
  const double n = static_cast<double>(a.size());
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

result<std::vector<std::string>> assumed_constants(const fs::path& profile_file) {
  auto lines = read_lines(profile_file);
  if (!lines.ok()) return lines.error();
  auto root = parse(profile_file);
  if (!root.ok()) return root.error();
  std::vector<std::string> out;
  for_each_value(*root, [&](const std::string& key, const toml::node& node) {
    if (node.is_string() || node.is_table()) return;
    const size_t line = node.source().begin.line;
    if (line == 0 || line > lines->size()) return;
    const std::string& text = (*lines)[line - 1];
    const size_t hash = text.find('#');
    if (hash == std::string::npos) return;
    if (trimmed(text.substr(hash + 1)).rfind(assumed_marker, 0) == 0) out.push_back(key);
  });
  return out;
}

result<calibration_result> calibrate(const sim::hw_profile& profile,
                                     const std::vector<std::string>& assumed,
                                     const std::vector<measurement_record>& records) {
  calibration_result out;
  out.profile = profile;
  nlohmann::json values;
  sim::to_json(values, profile);

  std::vector<const measurement_record*> rows;
  for (const auto& r : records) {
    if (r.has_sim && r.sim_latency_us > 0) rows.push_back(&r);
  }
  std::vector<std::string> names;
  for (const auto& name : assumed) {
    const auto& known = calibratable_constants();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      out.assumed_not_fitted.push_back(name);
      continue;
    }
    bool informative = false;
    for (const auto* r : rows) {
      informative |= calibration_feature(name, r->sim_profile, profile) != 0;
    }
    if (!informative || !(values.at(name).get<double>() > 0)) {
      out.assumed_not_fitted.push_back(name);
      out.notes.push_back(name + ": no measurement exercises it");
      continue;
    }
    names.push_back(name);
  }
  if (names.empty()) return invalid_argument("no assumed constant of the profile can be fitted");
  if (rows.size() < names.size() + 2) {
    return invalid_argument(fmt::format(
        "{} measurements carry the simulator's side (device.kind = \"cascade\"); fitting {} "
        "constants needs at least {}",
        rows.size(), names.size(), names.size() + 2));
  }

  // Relative steps: z_ik = theta0_k x_ik, residual = measured - simulated.
  const size_t n = rows.size();
  const size_t k = names.size();
  std::vector<double> z(n * k), resid(n), measured(n), simulated(n);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < k; ++j) {
      z[i * k + j] = values.at(names[j]).get<double>() *
                     calibration_feature(names[j], rows[i]->sim_profile, profile);
    }
    measured[i] = rows[i]->measured.median_us;
    simulated[i] = rows[i]->sim_latency_us;
    resid[i] = measured[i] - simulated[i];
  }
  std::vector<double> ztz(k * k, 0), ztr(k, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t a = 0; a < k; ++a) {
      ztr[a] += z[i * k + a] * resid[i];
      for (size_t b = 0; b < k; ++b) ztz[a * k + b] += z[i * k + a] * z[i * k + b];
    }
  }
  double trace = 0;
  for (size_t a = 0; a < k; ++a) trace += ztz[a * k + a];
  for (size_t a = 0; a < k; ++a) ztz[a * k + a] += ridge * trace / static_cast<double>(k);
  std::vector<double> delta;
  if (!solve(ztz, ztr, delta)) return invalid_argument("the measurements determine no fit");

  std::vector<double> predicted = simulated;
  for (size_t j = 0; j < k; ++j) {
    const double before = values.at(names[j]).get<double>();
    double after = before * (1 + delta[j]);
    if (!(after > 0)) {
      out.notes.push_back(
          fmt::format("{}: the fit says {:.4g}, not a cost; kept {:.4g}", names[j], after, before));
      after = before;
      delta[j] = 0;
    }
    out.fitted.push_back({names[j], before, after});
    values[names[j]] = after;
  }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < k; ++j) predicted[i] += z[i * k + j] * delta[j];
  }
  sim::from_json(values, out.profile);
  out.used = n;
  out.spearman_before = spearman(simulated, measured);
  out.spearman_after = spearman(predicted, measured);
  return out;
}

result<std::string> write_fitted_profile(const fs::path& profile_file,
                                         const calibration_result& fit, const std::string& new_name,
                                         const std::string& source) {
  auto lines = read_lines(profile_file);
  if (!lines.ok()) return lines.error();
  auto root = parse(profile_file);
  if (!root.ok()) return root.error();
  std::map<std::string, const fitted_constant*> by_name;
  for (const auto& f : fit.fitted) by_name[f.name] = &f;
  for_each_value(*root, [&](const std::string& key, const toml::node& node) {
    const toml::source_region where = node.source();
    if (where.begin.line == 0 || where.begin.line != where.end.line) return;
    std::string& line = (*lines)[where.begin.line - 1];
    const size_t b = where.begin.column - 1;
    const size_t e = where.end.column - 1;
    if (e > line.size() || b >= e) return;
    if (key == "name" && node.is_string()) {
      line = line.substr(0, b) + "\"" + new_name + "\"" + line.substr(e);
      return;
    }
    auto it = by_name.find(key);
    if (it == by_name.end()) return;
    const size_t hash = line.find('#', e);
    const std::string old_comment = hash == std::string::npos ? "" : trimmed(line.substr(hash + 1));
    line =
        fmt::format("{}{:.6g}  # fitted by aopt calibrate to {} (was {:.6g}; {})",
                    line.substr(0, b), it->second->after, source, it->second->before, old_comment);
  });
  std::string text = fmt::format(
      "# Calibrated by `aopt calibrate` from {}: the constants marked \"fitted\" below were\n"
      "# least-squares fitted to measured latencies (Spearman rank correlation of simulated vs\n"
      "# measured {:.3f} before, {:.3f} after, {} measurements). Still a model, not the chip.\n",
      source, fit.spearman_before, fit.spearman_after, fit.used);
  for (const auto& l : *lines) text += l + "\n";
  return text;
}

}  // namespace aopt::npu
