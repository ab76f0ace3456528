#include "npu/profile_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include "base/text_trim.hpp"
#include "npu/sim/runtime/timing_sensitivity.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

constexpr const char* assumed_marker = "assumed";
// Relative ridge weight: only breaks exact collinearity, far below any real signal.
constexpr double ridge = 1e-9;
// A column whose part not explained by the columns accepted before it is below this fraction of
// its norm is (nearly) collinear with them: its fitted value would be noise.
constexpr double collinear_tolerance = 1e-3;
// A constant is fitted only when the measurements determine it to this fraction of its value
// (one standard error): beyond it, its effect is lost in the measurement noise.
constexpr double max_relative_error = 0.02;

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

// Least squares r ~ Z delta over the columns of Z, with the standard error of each delta
// (sqrt of the diagonal of sigma^2 (Z'Z)^-1, sigma^2 the residual variance); false when
// Z'Z is singular or there are no more rows than columns.
bool least_squares(const std::vector<std::vector<double>>& columns, const std::vector<double>& r,
                   std::vector<double>& delta, std::vector<double>& standard_error) {
  const size_t k = columns.size();
  const size_t n = r.size();
  if (n <= k) return false;
  std::vector<double> ztz(k * k, 0), ztr(k, 0);
  for (size_t a = 0; a < k; ++a) {
    ztr[a] = std::inner_product(columns[a].begin(), columns[a].end(), r.begin(), 0.0);
    for (size_t b = 0; b < k; ++b) {
      ztz[a * k + b] =
          std::inner_product(columns[a].begin(), columns[a].end(), columns[b].begin(), 0.0);
    }
  }
  double trace = 0;
  for (size_t a = 0; a < k; ++a) trace += ztz[a * k + a];
  for (size_t a = 0; a < k; ++a) ztz[a * k + a] += ridge * trace / static_cast<double>(k);
  if (!solve(ztz, ztr, delta)) return false;
  double rss = 0;
  for (size_t i = 0; i < n; ++i) {
    double e = r[i];
    for (size_t a = 0; a < k; ++a) e -= columns[a][i] * delta[a];
    rss += e * e;
  }
  const double variance = rss / static_cast<double>(n - k);
  standard_error.assign(k, 0);
  for (size_t a = 0; a < k; ++a) {
    std::vector<double> unit(k, 0), column;
    unit[a] = 1;
    if (!solve(ztz, unit, column)) return false;
    standard_error[a] = std::sqrt(std::max(0.0, variance * column[a]));
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
    if (trim(text.substr(hash + 1)).rfind(assumed_marker, 0) == 0) out.push_back(key);
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
  size_t without_sensitivity = 0;
  for (const auto& r : records) {
    if (!r.has_sim || !(r.sim_latency_us > 0)) continue;
    if (r.sim_profile.latency_sensitivity.empty()) {
      ++without_sensitivity;
      continue;
    }
    rows.push_back(&r);
  }
  if (without_sensitivity > 0) {
    out.notes.push_back(fmt::format(
        "{} records skipped: their simulator side has no latency sensitivities (written by an "
        "older aopt)",
        without_sensitivity));
  }
  const auto feature = [](const measurement_record& r, const std::string& name) {
    auto it = r.sim_profile.latency_sensitivity.find(name);
    return it == r.sim_profile.latency_sensitivity.end() ? 0.0 : it->second;
  };

  // Candidate columns z_ik = theta0_k x_ik (relative steps), accepted in the profile's order
  // unless nothing moves them or the columns accepted before explain them (Gram-Schmidt).
  const size_t n = rows.size();
  std::vector<std::string> names;
  std::vector<std::vector<double>> columns;  // accepted, as they are
  std::vector<std::vector<double>> basis;    // accepted, orthonormalised
  for (const auto& name : assumed) {
    const std::string why = sim::why_not_linear(name);
    if (!why.empty()) {
      out.assumed_not_fitted.push_back({name, why});
      continue;
    }
    const double theta0 = values.at(name).get<double>();
    if (!(theta0 > 0)) {
      out.assumed_not_fitted.push_back(
          {name, "its value is 0, so relative steps cannot move it (set a positive start)"});
      continue;
    }
    std::vector<double> z(n);
    for (size_t i = 0; i < n; ++i) z[i] = theta0 * feature(*rows[i], name);
    const double norm = std::sqrt(std::inner_product(z.begin(), z.end(), z.begin(), 0.0));
    if (!(norm > 0)) {
      out.assumed_not_fitted.push_back(
          {name,
           "no measured candidate exercises it: its latency sensitivity is 0 in every record"});
      continue;
    }
    std::vector<double> rest = z;
    std::vector<std::string> related;
    for (size_t b = 0; b < basis.size(); ++b) {
      const double dot = std::inner_product(rest.begin(), rest.end(), basis[b].begin(), 0.0);
      for (size_t i = 0; i < n; ++i) rest[i] -= dot * basis[b][i];
      if (std::inner_product(z.begin(), z.end(), columns[b].begin(), 0.0) != 0) {
        related.push_back(names[b]);
      }
    }
    const double rest_norm =
        std::sqrt(std::inner_product(rest.begin(), rest.end(), rest.begin(), 0.0));
    if (rest_norm < collinear_tolerance * norm) {
      out.assumed_not_fitted.push_back(
          {name, fmt::format("over these measurements its effect on latency is a linear "
                             "combination of that of {}: latencies cannot tell them apart",
                             fmt::join(related, ", "))});
      continue;
    }
    for (double& v : rest) v /= rest_norm;
    names.push_back(name);
    columns.push_back(std::move(z));
    basis.push_back(std::move(rest));
  }
  if (names.empty()) return invalid_argument("no assumed constant of the profile can be fitted");
  if (n < names.size() + 2) {
    return invalid_argument(fmt::format(
        "{} measurements carry the simulator's side with latency sensitivities (device.kind = "
        "\"cascade\"); fitting {} constants needs at least {}",
        n, names.size(), names.size() + 2));
  }

  std::vector<double> resid(n), measured(n), simulated(n);
  for (size_t i = 0; i < n; ++i) {
    measured[i] = rows[i]->measured.median_us;
    simulated[i] = rows[i]->sim_latency_us;
    resid[i] = measured[i] - simulated[i];
  }
  // Fit, then drop the worst constant that the data leave undetermined (a standard error above
  // max_relative_error of its value) or that comes out where the profile allows no value, and
  // fit the others again without it, until every remaining one is determined and allowed.
  std::vector<double> delta;
  for (;;) {
    const size_t k = names.size();
    std::vector<double> standard_error;
    if (!least_squares(columns, resid, delta, standard_error)) {
      return invalid_argument("the measurements determine no fit");
    }
    size_t worst = k;
    std::string why;
    for (size_t j = 0; j < k; ++j) {
      if (standard_error[j] > max_relative_error &&
          (worst == k || standard_error[j] > standard_error[worst])) {
        worst = j;
        why = fmt::format(
            "its effect on these latencies is within their noise: the fit's standard error is "
            "{:.0f} % of its value",
            standard_error[j] * 100);
      }
    }
    for (size_t j = 0; j < k && worst == k; ++j) {
      const double before = values.at(names[j]).get<double>();
      const double after = before * (1 + delta[j]);
      // The profile's own range checks decide what a fitted value may be (a cost >= 0, the
      // short-burst penalty >= 1, ...).
      nlohmann::json candidate = values;
      candidate[names[j]] = after;
      sim::hw_profile check;
      try {
        sim::from_json(candidate, check);
      } catch (const std::invalid_argument& e) {
        worst = j;
        why = fmt::format("the fit says {:.4g}, which the profile does not allow ({})", after,
                          e.what());
      }
      if (worst == k && !(after > 0)) {
        worst = j;
        why = fmt::format("the fit says {:.4g}, not a cost", after);
      }
    }
    if (worst == k) break;
    out.assumed_not_fitted.push_back({names[worst], why});
    names.erase(names.begin() + static_cast<std::ptrdiff_t>(worst));
    columns.erase(columns.begin() + static_cast<std::ptrdiff_t>(worst));
    if (names.empty()) return invalid_argument("no assumed constant of the profile can be fitted");
  }
  const size_t k = names.size();
  for (size_t j = 0; j < k; ++j) {
    const double before = values.at(names[j]).get<double>();
    const double after = before * (1 + delta[j]);
    out.fitted.push_back({names[j], before, after});
    values[names[j]] = after;
  }
  std::vector<double> predicted = simulated;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < k; ++j) predicted[i] += columns[j][i] * delta[j];
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
    const std::string old_comment = hash == std::string::npos ? "" : trim(line.substr(hash + 1));
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
