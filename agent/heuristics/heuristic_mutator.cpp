#include "agent/heuristics/heuristic_mutator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "agent/kernel_text/tiling_names.hpp"

namespace aopt::agent {

namespace {

constexpr size_t kDomainScanLimit = 4096;

bool mutable_tunable(const tunable& t) {
  std::vector<int64_t> d = t.domain(2);
  return d.empty() || d.size() > 1;  // empty: more values than the limit
}

// The domain value nearest to `v` (ties: the lower one).
int64_t clamp_to_domain(const tunable& t, int64_t v) {
  switch (t.kind) {
    case tunable_kind::range: {
      if (v <= t.lo) return t.lo;
      int64_t top = t.lo + (t.hi - t.lo) / t.step * t.step;
      if (v >= top) return top;
      int64_t below = t.lo + (v - t.lo) / t.step * t.step;
      int64_t above = below + t.step;
      return (v - below) <= (above - v) ? below : above;
    }
    case tunable_kind::pow2:
    case tunable_kind::choice: {
      std::vector<int64_t> d = t.domain();
      int64_t best = d.front();
      for (int64_t x : d) {
        if (std::llabs(x - v) < std::llabs(best - v) ||
            (std::llabs(x - v) == std::llabs(best - v) && x < best)) {
          best = x;
        }
      }
      return best;
    }
  }
  return v;
}

nlohmann::json tunable_to_json(const tunable& t) {
  return {{"name", t.name},       {"type", t.type},   {"kind", to_string(t.kind)},
          {"lo", t.lo},           {"hi", t.hi},       {"step", t.step},
          {"choices", t.choices}, {"value", t.value}, {"line", t.line}};
}

result<tunable> tunable_from_json(const nlohmann::json& j) {
  try {
    tunable t;
    t.name = j.at("name").get<std::string>();
    t.type = j.at("type").get<std::string>();
    std::string kind = j.at("kind").get<std::string>();
    if (kind == "range") {
      t.kind = tunable_kind::range;
    } else if (kind == "pow2") {
      t.kind = tunable_kind::pow2;
    } else if (kind == "choice") {
      t.kind = tunable_kind::choice;
    } else {
      return invalid_argument("tunables: unknown kind '" + kind + "'");
    }
    t.lo = j.at("lo").get<int64_t>();
    t.hi = j.at("hi").get<int64_t>();
    t.step = j.at("step").get<int64_t>();
    t.choices = j.at("choices").get<std::vector<int64_t>>();
    t.value = j.at("value").get<int64_t>();
    t.line = j.at("line").get<size_t>();
    if (t.step < 1 || t.lo > t.hi || (t.kind == tunable_kind::choice && t.choices.empty())) {
      return invalid_argument("tunables: " + t.name + ": inconsistent domain");
    }
    return t;
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("tunables: ") + e.what());
  }
}

bool ub_kind(const std::string& kind) {
  return kind == "ub_overflow" || kind == "ub_out_of_bounds" || kind == "too_many_buffers";
}

// Largest power of two dividing v, at most `cap` (1 for v <= 0).
int64_t pow2_divisor(int64_t v, int64_t cap) {
  if (v <= 0) return 1;
  int64_t g = 1;
  while (g < cap && v % (g * 2) == 0) g *= 2;
  return g;
}

}  // namespace

tiling_role tunable_role(const tunable& t) {
  // Synthesized notes start with the lever kind (template_synthesis.cpp, tiling_usage.cpp).
  static const std::pair<const char*, tiling_role> prefixes[] = {
      {"core cap", tiling_role::block_dim},     {"buffer depth", tiling_role::buffer_num},
      {"tile size", tiling_role::tile_size},    {"tile count", tiling_role::tile_count},
      {"UB budget", tiling_role::ub_size},      {"core count", tiling_role::block_dim},
      {"elements per", tiling_role::tile_size}, {"alignment block", tiling_role::none},
  };
  for (const auto& [prefix, role] : prefixes) {
    if (t.note.rfind(prefix, 0) == 0) return role;
  }
  return classify_tiling_name(t.name);
}

admissibility_check make_ub_capacity_check(const std::vector<tunable>& tunables, uint64_t ub_bytes,
                                           uint32_t bytes_per_element, uint32_t cores) {
  std::string tile;
  std::string buffers;
  std::vector<std::string> block_dims;
  for (const tunable& t : tunables) {
    tiling_role role = tunable_role(t);
    if (role == tiling_role::tile_size && tile.empty()) tile = t.name;
    if (role == tiling_role::buffer_num && buffers.empty()) buffers = t.name;
    if (role == tiling_role::block_dim) block_dims.push_back(t.name);
  }
  return [tile, buffers, block_dims, ub_bytes, bytes_per_element,
          cores](const tunable_values& values) -> std::string {
    if (cores > 0) {
      for (const std::string& name : block_dims) {
        auto it = values.find(name);
        if (it != values.end() && (it->second < 1 || it->second > cores)) {
          return "bad_block_dim (predicted): " + name + " = " + std::to_string(it->second) +
                 " outside 1.." + std::to_string(cores);
        }
      }
    }
    auto tile_it = values.find(tile);
    if (ub_bytes == 0 || tile.empty() || tile_it == values.end()) return {};
    int64_t count = 1;
    if (auto it = values.find(buffers); !buffers.empty() && it != values.end()) count = it->second;
    long double bytes = static_cast<long double>(tile_it->second) *
                        static_cast<long double>(count) * bytes_per_element;
    if (bytes <= static_cast<long double>(ub_bytes)) return {};
    return "ub_overflow (predicted): " + tile + " x " + (buffers.empty() ? "1" : buffers) +
           " needs " + std::to_string(static_cast<uint64_t>(bytes)) + " bytes of " +
           std::to_string(ub_bytes);
  };
}

heuristic_mutator::heuristic_mutator(std::vector<tunable> tunables, mutator_options options,
                                     admissibility_check check)
    : tunables_(std::move(tunables)),
      options_(options),
      check_(std::move(check)),
      rng_(options.seed) {
  options_.population = std::max<uint32_t>(1, options_.population);
  options_.elite = std::clamp<uint32_t>(options_.elite, 1, options_.population);
  options_.region_rejections = std::max<uint32_t>(1, options_.region_rejections);
  // Block dims beyond the cores are rejected before the device: leave them out of the domain.
  for (tunable& t : tunables_) {
    if (options_.cores > 0 && tunable_role(t) == tiling_role::block_dim &&
        t.kind == tunable_kind::range && t.lo <= static_cast<int64_t>(options_.cores)) {
      t.hi = std::min<int64_t>(t.hi, options_.cores);
    }
  }
  for (const tunable& t : tunables_) initial_.push_back(t.value);
  tried_.insert(initial_);
  make_initial_samples();
}

// A Latin-hypercube sample: each tunable's [0, 1) axis cut into n strata, one point per
// stratum, strata paired at random; wide and pow2 axes are log-scaled.
void heuristic_mutator::make_initial_samples() {
  const size_t n = options_.initial_samples;
  if (n == 0 || tunables_.empty()) return;
  seeded_rng rng(options_.seed ^ 0x5eed5a3b1e5ULL);  // own stream: rng_ stays as it was
  std::vector<point> points(n, initial_);
  for (size_t i = 0; i < tunables_.size(); ++i) {
    const tunable& t = tunables_[i];
    std::vector<size_t> strata(n);
    for (size_t k = 0; k < n; ++k) strata[k] = k;
    for (size_t k = n; k > 1; --k) std::swap(strata[k - 1], strata[rng.below(k)]);
    std::vector<int64_t> listed =
        t.kind == tunable_kind::range ? std::vector<int64_t>{} : t.domain(kDomainScanLimit);
    const bool log_scale = t.kind == tunable_kind::range && t.lo >= 1 && t.hi >= 16 * t.lo &&
                           tunable_role(t) != tiling_role::block_dim;
    for (size_t k = 0; k < n; ++k) {
      const double u = (static_cast<double>(strata[k]) + rng.unit()) / static_cast<double>(n);
      int64_t v = t.value;
      if (!listed.empty()) {
        v = listed[std::min(listed.size() - 1, static_cast<size_t>(u * listed.size()))];
      } else if (t.kind == tunable_kind::range) {
        const double x =
            log_scale ? static_cast<double>(t.lo) * std::pow(static_cast<double>(t.hi) / t.lo, u)
                      : t.lo + u * static_cast<double>(t.hi - t.lo);
        v = clamp_to_domain(t, static_cast<int64_t>(std::llround(x)));
      }
      points[k][i] = align(i, v, t.value);
    }
  }
  samples_ = std::move(points);
}

bool heuristic_mutator::in_infeasible_region(const point& p) const {
  for (const auto& [index, values] : excluded_values_) {
    if (index < p.size() && values.count(p[index]) != 0) return true;
  }
  for (const auto& [q, recorded] : infeasible_) {
    // A screening's prediction depends on the screened tunables alone (the hook's model).
    const bool predicted =
        recorded.size() > 12 && recorded.compare(recorded.size() - 12, 12, " (predicted)") == 0;
    const std::string kind = predicted ? recorded.substr(0, recorded.size() - 12) : recorded;
    std::vector<tiling_role> roles;
    // +1: the failure grows with these tunables; -1: it shrinks with them (coverage).
    int direction = 1;
    if (ub_kind(kind)) {
      roles = {tiling_role::tile_size, tiling_role::buffer_num, tiling_role::ub_size};
    } else if (kind == "bad_block_dim") {
      roles = {tiling_role::block_dim};
    } else if (kind == "uncovered") {
      roles = {tiling_role::block_dim, tiling_role::tile_size};
      direction = -1;
    } else {
      continue;
    }
    // A UB failure grows with the tile, buffer and UB tunables; block dims leave the per-core
    // UB alone. Any other tunable (a name no role is known for) may be what filled the UB, so
    // the region keeps it at the failed value: never generalise past what is understood. Too
    // few cores times too short tiles leave data uncovered: fewer or shorter fail as well.
    const bool keep_others = kind != "bad_block_dim" && !predicted;
    bool any = false;
    bool dominates = true;
    for (size_t i = 0; i < tunables_.size() && dominates; ++i) {
      tiling_role r = tunable_role(tunables_[i]);
      if (std::find(roles.begin(), roles.end(), r) == roles.end()) {
        if (keep_others && (r != tiling_role::block_dim || kind == "uncovered"))
          dominates = p[i] == q[i];
        continue;
      }
      any = true;
      dominates = direction > 0 ? p[i] >= q[i] : p[i] <= q[i];
    }
    if (any && dominates) return true;
  }
  return false;
}

bool heuristic_mutator::excluded(const tunable_values& values) const {
  return in_infeasible_region(to_point(values));
}

// Blames a failure on the one tunable in which it differs from a feasible member, if there is
// one; k such failures of a value exclude it.
void heuristic_mutator::learn_failure(const point& p, const std::string& kind) {
  if (!kind.empty()) infeasible_.emplace_back(p, kind);
  for (const member& m : population_) {
    const point q = to_point(m.values);
    size_t differing = 0;
    size_t index = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] != q[i]) {
        ++differing;
        index = i;
      }
    }
    if (differing != 1) continue;
    if (++blame_[{index, p[index]}] >= options_.region_rejections)
      excluded_values_[index].insert(p[index]);
    return;
  }
}

bool heuristic_mutator::constructive() const {
  const uint32_t reports = feasible_reports_ + infeasible_reports_;
  return reports >= 4 && 2 * feasible_reports_ < reports;
}

int64_t heuristic_mutator::alignment_block(size_t index) const {
  const tunable& t = tunables_[index];
  const int64_t unit = options_.element_bytes > 0 && 32 % options_.element_bytes == 0
                           ? 32 / static_cast<int64_t>(options_.element_bytes)
                           : 1;
  if (tunable_role(t) == tiling_role::tile_size) return unit;
  // Another tunable keeps the start's alignment only once a failure moved it: one that never
  // took part in a failure moves freely.
  const bool implicated = std::any_of(infeasible_.begin(), infeasible_.end(), [&](const auto& f) {
    return f.first[index] != initial_[index];
  });
  return implicated ? pow2_divisor(initial_[index], 256) : 1;
}

std::vector<int64_t> heuristic_mutator::constructive_values(size_t index, const point& parent) {
  const tunable& t = tunables_[index];
  const tiling_role role = tunable_role(t);
  const int64_t v = parent[index];
  std::vector<int64_t> out;
  auto add = [&](int64_t x, int64_t block) {
    x = clamp_to_domain(t, x);
    if (x != v && x > 0 && t.admits(x) && x % block == 0 &&
        std::find(out.begin(), out.end(), x) == out.end())
      out.push_back(x);
  };
  switch (role) {
    case tiling_role::block_dim: {
      const int64_t cores = options_.cores > 0 ? options_.cores : t.hi;
      for (int64_t x : {cores, cores / 2, v + 1, v - 1, v * 2, v / 2}) add(x, 1);
      break;
    }
    case tiling_role::buffer_num:
      for (int64_t c : t.domain(kDomainScanLimit)) add(c, 1);
      break;
    default: {
      const int64_t block = alignment_block(index);
      if (role == tiling_role::tile_size && options_.ub_bytes > 0 &&
          options_.tile_bytes_per_element > 0) {
        // The largest aligned tile the UB holds at the parent's buffer depth, and half of it.
        int64_t buffers = 1;
        for (size_t i = 0; i < tunables_.size(); ++i) {
          if (tunable_role(tunables_[i]) == tiling_role::buffer_num) buffers = parent[i];
        }
        const int64_t tile = static_cast<int64_t>(options_.ub_bytes) /
                             std::max<int64_t>(1, buffers) / options_.tile_bytes_per_element;
        for (int64_t x : {tile, tile / 2}) {
          const int64_t aligned = x / block * block;
          if (t.kind == tunable_kind::pow2) {
            int64_t p2 = 1;
            while (p2 * 2 <= aligned) p2 *= 2;
            add(p2, block);
          } else {
            // The domain's grid value at or below it that is a multiple of the block.
            for (int64_t y = aligned; y >= t.lo && y > 0; y -= block) {
              if (t.admits(y)) {
                add(y, block);
                break;
              }
            }
          }
        }
      }
      for (int64_t k = 1; k <= 3; ++k) {
        add(v << k, block);
        add(v >> k, block);
      }
      for (int64_t j = 1; j <= 2; ++j) {
        add(v + j * std::max<int64_t>(block, t.step), block);
        add(v - j * std::max<int64_t>(block, t.step), block);
      }
      break;
    }
  }
  return out;
}

std::optional<heuristic_mutator::point> heuristic_mutator::constructive_candidate(
    std::string& how) {
  std::vector<size_t> movable;
  for (size_t i = 0; i < tunables_.size(); ++i) {
    if (mutable_tunable(tunables_[i])) movable.push_back(i);
  }
  if (movable.empty()) return std::nullopt;
  std::vector<point> parents;
  for (const member& m : population_) parents.push_back(to_point(m.values));
  parents.push_back(initial_);
  for (const point& parent : parents) {
    // Tunables in a seeded order, each tried with every constructive value.
    std::vector<size_t> order = movable;
    for (size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[rng_.below(k)]);
    for (size_t index : order) {
      for (int64_t v : constructive_values(index, parent)) {
        point p = parent;
        p[index] = v;
        if (!acceptable(p)) continue;
        how = fmt::format("feasible by construction ({} of {} candidates feasible): {}",
                          feasible_reports_, feasible_reports_ + infeasible_reports_,
                          describe(parent, p));
        return p;
      }
    }
  }
  return std::nullopt;
}

void heuristic_mutator::begin_repair(const std::string& kind) {
  // For each tunable, the values that reduce the failing quantity, preferred first.
  std::vector<std::vector<int64_t>> moves(tunables_.size());
  const int64_t unit = options_.element_bytes > 0 && 32 % options_.element_bytes == 0
                           ? 32 / static_cast<int64_t>(options_.element_bytes)
                           : 1;
  for (size_t i = 0; i < tunables_.size(); ++i) {
    const tunable& t = tunables_[i];
    const tiling_role role = tunable_role(t);
    const int64_t v = initial_[i];
    std::vector<int64_t> wanted;
    if (ub_kind(kind)) {
      if (role == tiling_role::tile_size || role == tiling_role::ub_size) {
        wanted = {v / 2 / unit * unit, v / 4 / unit * unit};
      } else if (role == tiling_role::buffer_num) {
        std::vector<int64_t> d = t.domain(kDomainScanLimit);
        std::sort(d.rbegin(), d.rend());
        for (int64_t c : d) {
          if (c < v) wanted.push_back(c);
        }
      } else if (role == tiling_role::tile_count) {
        wanted = {v * 2, v * 4};
      }
    } else if (kind == "bad_block_dim") {
      if (role == tiling_role::block_dim) {
        if (options_.cores > 0 && v > static_cast<int64_t>(options_.cores))
          wanted.push_back(options_.cores);
        wanted.push_back(std::max<int64_t>(1, v / 2));
        if (v < 1) wanted = {1};
      }
    } else if (kind == "misaligned") {
      if (role != tiling_role::block_dim && role != tiling_role::buffer_num && unit > 1 &&
          v % unit != 0) {
        wanted = {v / unit * unit, (v / unit + 1) * unit};
      }
    } else if (kind == "uncovered") {
      if (role == tiling_role::block_dim || role == tiling_role::tile_size) {
        wanted = {v * 2};
        if (role == tiling_role::block_dim && options_.cores > 0) wanted.push_back(options_.cores);
      } else if (role == tiling_role::tile_count) {
        wanted = {std::max<int64_t>(1, v / 2)};
      }
    }
    for (int64_t w : wanted) {
      const int64_t c = clamp_to_domain(t, w);
      if (c != v && t.admits(c) && std::find(moves[i].begin(), moves[i].end(), c) == moves[i].end())
        moves[i].push_back(c);
    }
  }
  std::vector<point> plan;
  // One tunable at a time (each's first move, then each's second), then together.
  for (size_t depth = 0; depth < 2; ++depth) {
    for (size_t i = 0; i < tunables_.size(); ++i) {
      if (moves[i].size() <= depth) continue;
      point p = initial_;
      p[i] = moves[i][depth];
      plan.push_back(p);
    }
  }
  for (size_t depth = 0; depth < 2; ++depth) {
    point p = initial_;
    size_t moved = 0;
    for (size_t i = 0; i < tunables_.size(); ++i) {
      if (moves[i].empty()) continue;
      p[i] = moves[i][std::min(depth, moves[i].size() - 1)];
      ++moved;
    }
    if (moved >= 2) plan.push_back(p);
  }
  samples_.insert(samples_.begin(), plan.begin(), plan.end());
  repair_pending_ = plan.size();
}

heuristic_mutator::point heuristic_mutator::to_point(const tunable_values& values) const {
  point p = initial_;
  for (size_t i = 0; i < tunables_.size(); ++i) {
    if (auto it = values.find(tunables_[i].name); it != values.end()) p[i] = it->second;
  }
  return p;
}

tunable_values heuristic_mutator::to_values(const point& p) const {
  tunable_values values;
  for (size_t i = 0; i < tunables_.size(); ++i) values[tunables_[i].name] = p[i];
  return values;
}

bool heuristic_mutator::tried(const tunable_values& values) const {
  return tried_.count(to_point(values)) != 0;
}

std::optional<heuristic_mutator::member> heuristic_mutator::best() const {
  if (population_.empty()) return std::nullopt;
  return population_.front();
}

bool heuristic_mutator::acceptable(const point& p) {
  for (size_t i = 0; i < tunables_.size(); ++i) {
    if (!tunables_[i].admits(p[i])) return false;
  }
  if (tried_.count(p) != 0 || in_infeasible_region(p)) return false;
  if (!check_) return true;
  std::string why = check_(to_values(p));
  if (why.empty()) return true;
  // Screened out before the device: counted once (a tried set is never drawn again), and its
  // region learned as a device failure's would be, so the region costs one screening.
  tried_.insert(p);
  rejected_[why.substr(0, why.find(':'))]++;
  infeasible_.emplace_back(p, why.substr(0, why.find(':')));
  return false;
}

int64_t heuristic_mutator::align(size_t index, int64_t value, int64_t previous) const {
  const tunable& t = tunables_[index];
  const tiling_role role = tunable_role(t);
  if (t.kind == tunable_kind::range && role == tiling_role::tile_count &&
      options_.data_elements > 0) {
    // The nearest count dividing the data, first in the direction the value moved.
    const int64_t data = static_cast<int64_t>(options_.data_elements);
    const int64_t dir = value >= previous ? 1 : -1;
    for (int64_t k = 0; k <= static_cast<int64_t>(kDomainScanLimit); ++k) {
      for (int64_t v : {value + dir * k * t.step, value - dir * k * t.step}) {
        if (v > 0 && t.admits(v) && data % v == 0 && v != previous) return v;
      }
      if (value + k * t.step > t.hi && value - k * t.step < t.lo) break;
    }
    return value;
  }
  if (t.kind == tunable_kind::choice || role != tiling_role::tile_size) {
    return value;
  }
  int64_t unit = options_.element_bytes > 0 && 32 % options_.element_bytes == 0
                     ? 32 / static_cast<int64_t>(options_.element_bytes)
                     : 1;
  if (unit <= 1 || value % unit == 0) return value;
  if (t.kind == tunable_kind::pow2) {
    // Powers of two at or above the unit are multiples of it.
    for (int64_t v = 1; v <= t.hi && v > 0; v *= 2) {
      if (v >= unit && v >= t.lo) return v;
    }
    return value;
  }
  // Nearest grid value of the range that is a multiple of the unit, searching outwards and
  // first in the direction the value moved, so rounding does not undo a small step.
  const int64_t dir = value >= previous ? 1 : -1;
  for (int64_t k = 0; k <= static_cast<int64_t>(kDomainScanLimit); ++k) {
    for (int64_t v : {value + dir * k * t.step, value - dir * k * t.step}) {
      if (t.admits(v) && v % unit == 0) return v;
    }
  }
  return value;
}

int64_t heuristic_mutator::perturb(size_t index, int64_t value) {
  const tunable& t = tunables_[index];
  switch (t.kind) {
    case tunable_kind::pow2: {
      int64_t factor = rng_.chance(0.2) ? 4 : 2;
      bool up = rng_.chance(0.5);
      for (int attempt = 0; attempt < 2; ++attempt, up = !up) {
        int64_t v = up ? value * factor : value / factor;
        if (t.admits(v)) return v;
      }
      // Both directions leave the domain: the nearest other power of two.
      for (int64_t v : {value * 2, value / 2}) {
        int64_t c = clamp_to_domain(t, v);
        if (c != value) return c;
      }
      return value;
    }
    case tunable_kind::range: {
      int64_t steps = (t.hi - t.lo) / t.step;
      const bool wide = t.lo >= 1 && t.hi >= 16 * t.lo && tunable_role(t) != tiling_role::block_dim;
      if (wide && rng_.chance(0.5)) {
        const double factor = 1.2 * std::pow(4.0 / 1.2, rng_.unit());
        const double x = rng_.chance(0.5) ? value * factor : value / factor;
        int64_t v = clamp_to_domain(t, static_cast<int64_t>(std::llround(x)));
        if (v != value) return v;
      }
      double r = rng_.unit();
      int64_t v = value;
      if (r < 0.5 || steps < 2) {
        v = value + (rng_.chance(0.5) ? t.step : -t.step);
      } else if (r < 0.85) {
        int64_t k = rng_.between(2, std::max<int64_t>(2, steps / 4));
        v = value + (rng_.chance(0.5) ? k : -k) * t.step;
      } else {
        v = t.lo + rng_.between(0, steps) * t.step;
      }
      v = clamp_to_domain(t, v);
      if (v == value) {
        int64_t down = clamp_to_domain(t, value - t.step);
        int64_t up = clamp_to_domain(t, value + t.step);
        v = down != value ? down : up;
      }
      return v;
    }
    case tunable_kind::choice: {
      std::vector<int64_t> others;
      for (int64_t c : t.choices) {
        if (c != value) others.push_back(c);
      }
      if (others.empty()) return value;
      return others[rng_.below(others.size())];
    }
  }
  return value;
}

std::string heuristic_mutator::describe(const point& parent, const point& child) const {
  std::string changes;
  for (size_t i = 0; i < tunables_.size(); ++i) {
    if (parent[i] == child[i]) continue;
    if (!changes.empty()) changes += ", ";
    changes +=
        tunables_[i].name + " " + std::to_string(parent[i]) + "->" + std::to_string(child[i]);
  }
  return changes.empty() ? "no change" : changes;
}

std::optional<heuristic_mutator::point> heuristic_mutator::draw_candidate(std::string& how) {
  std::vector<size_t> movable;
  for (size_t i = 0; i < tunables_.size(); ++i) {
    if (mutable_tunable(tunables_[i])) movable.push_back(i);
  }
  if (movable.empty()) return std::nullopt;

  const size_t elites = std::min<size_t>(options_.elite, population_.size());
  auto perturb_some = [&](point p, size_t count) {
    std::vector<size_t> pool = movable;
    for (size_t n = 0; n < count && !pool.empty(); ++n) {
      size_t pick = rng_.below(pool.size());
      size_t index = pool[pick];
      pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(pick));
      p[index] = align(index, perturb(index, p[index]), p[index]);
    }
    return p;
  };

  if (elites >= 2 && rng_.chance(options_.crossover_rate)) {
    size_t a = rng_.below(elites);
    size_t b = rng_.below(elites - 1);
    if (b >= a) ++b;
    point pa = to_point(population_[a].values);
    point pb = to_point(population_[b].values);
    point child = pa;
    for (size_t i = 0; i < child.size(); ++i) {
      if (rng_.chance(0.5)) child[i] = pb[i];
    }
    if (child == pa || child == pb) child = perturb_some(child, 1);
    how = "crossover of #" + std::to_string(a + 1) + " and #" + std::to_string(b + 1) + ": " +
          describe(pa, child);
    return child;
  }

  point parent = initial_;
  std::string parent_name = "initial";
  if (!population_.empty()) {
    size_t index = rng_.chance(0.75) ? rng_.below(elites) : rng_.below(population_.size());
    parent = to_point(population_[index].values);
    parent_name = "#" + std::to_string(index + 1);
  }
  size_t count = movable.size() >= 2 && rng_.chance(0.35) ? 2 : 1;
  point child = perturb_some(parent, count);
  how = "perturb " + describe(parent, child) + " (parent " + parent_name + ")";
  return child;
}

std::optional<heuristic_mutator::point> heuristic_mutator::scan_neighbourhood() {
  std::vector<point> parents;
  for (const member& m : population_) parents.push_back(to_point(m.values));
  parents.push_back(initial_);
  for (const point& parent : parents) {
    for (size_t i = 0; i < tunables_.size(); ++i) {
      std::vector<int64_t> domain = tunables_[i].domain(kDomainScanLimit);
      std::stable_sort(domain.begin(), domain.end(), [&](int64_t x, int64_t y) {
        return std::llabs(x - parent[i]) < std::llabs(y - parent[i]);
      });
      for (int64_t v : domain) {
        point p = parent;
        p[i] = v;
        if (acceptable(p)) {
          last_change_ = "scan " + describe(parent, p);
          return p;
        }
      }
    }
  }
  // Pairs and beyond: uniform samples of the whole space.
  for (uint32_t attempt = 0; attempt < 4 * options_.max_attempts; ++attempt) {
    point p(tunables_.size());
    for (size_t i = 0; i < tunables_.size(); ++i) {
      const tunable& t = tunables_[i];
      std::vector<int64_t> d = t.domain(kDomainScanLimit);
      if (!d.empty()) {
        p[i] = d[rng_.below(d.size())];
      } else {
        p[i] = t.lo + rng_.between(0, (t.hi - t.lo) / t.step) * t.step;
      }
    }
    if (acceptable(p)) {
      last_change_ = "sample " + describe(initial_, p);
      return p;
    }
  }
  return std::nullopt;
}

std::optional<tunable_values> heuristic_mutator::propose() {
  // Repair's plan comes first: its moves are the constructive ones for the failing quantity.
  while (repair_pending_ > 0 && !samples_.empty()) {
    --repair_pending_;
    point p = samples_.front();
    samples_.erase(samples_.begin());
    if (acceptable(p)) {
      tried_.insert(p);
      last_change_ = "repair: " + describe(initial_, p);
      return to_values(p);
    }
  }
  // A mostly infeasible space: no more wide samples, only moves feasible by construction.
  const bool constructive_now = constructive();
  if (constructive_now) {
    std::string how;
    if (std::optional<point> p = constructive_candidate(how)) {
      tried_.insert(*p);
      last_change_ = how;
      return to_values(*p);
    }
  }
  while (!samples_.empty() && !constructive_now) {
    point p = samples_.front();
    samples_.erase(samples_.begin());
    if (acceptable(p)) {
      tried_.insert(p);
      last_change_ = "space-filling sample: " + describe(initial_, p);
      return to_values(p);
    }
  }
  for (uint32_t attempt = 0; attempt < options_.max_attempts; ++attempt) {
    std::string how;
    std::optional<point> p = draw_candidate(how);
    if (!p) break;
    if (acceptable(*p)) {
      tried_.insert(*p);
      last_change_ = how;
      return to_values(*p);
    }
  }
  std::optional<point> p = scan_neighbourhood();
  if (!p) {
    last_change_ = "search space exhausted";
    return std::nullopt;
  }
  tried_.insert(*p);
  return to_values(*p);
}

void heuristic_mutator::report(const tunable_values& values, std::optional<double> latency_us,
                               const std::string& failure) {
  point p = to_point(values);
  tried_.insert(p);
  if (!latency_us || !std::isfinite(*latency_us)) {
    ++infeasible_reports_;
    learn_failure(p, failure);
    return;
  }
  ++feasible_reports_;
  // Repaired: the rest of the repair plan would only move further from what now works.
  if (repair_pending_ > 0) {
    const size_t drop = std::min(repair_pending_, samples_.size());
    samples_.erase(samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t>(drop));
    repair_pending_ = 0;
  }
  for (const member& m : population_) {
    if (to_point(m.values) == p) return;
  }
  population_.push_back(member{to_values(p), *latency_us, next_order_++});
  std::stable_sort(population_.begin(), population_.end(), [](const member& a, const member& b) {
    if (a.latency_us != b.latency_us) return a.latency_us < b.latency_us;
    return a.order < b.order;
  });
  if (population_.size() > options_.population) population_.resize(options_.population);
}

nlohmann::json heuristic_mutator::save() const {
  nlohmann::json j;
  j["kind"] = "heuristic-mutator";
  j["version"] = 1;
  j["options"] = {{"population", options_.population},
                  {"elite", options_.elite},
                  {"seed", options_.seed},
                  {"element_bytes", options_.element_bytes},
                  {"crossover_rate", options_.crossover_rate},
                  {"max_attempts", options_.max_attempts},
                  {"initial_samples", options_.initial_samples},
                  {"data_elements", options_.data_elements},
                  {"cores", options_.cores},
                  {"ub_bytes", options_.ub_bytes},
                  {"tile_bytes_per_element", options_.tile_bytes_per_element},
                  {"region_rejections", options_.region_rejections}};
  j["tunables"] = nlohmann::json::array();
  for (const tunable& t : tunables_) j["tunables"].push_back(tunable_to_json(t));
  j["population"] = nlohmann::json::array();
  for (const member& m : population_) {
    j["population"].push_back(
        {{"values", m.values}, {"latency_us", m.latency_us}, {"order", m.order}});
  }
  j["tried"] = tried_;
  j["samples"] = samples_;
  j["infeasible"] = nlohmann::json::array();
  for (const auto& [p, kind] : infeasible_)
    j["infeasible"].push_back({{"values", p}, {"kind", kind}});
  j["rejected"] = rejected_;
  j["blame"] = nlohmann::json::array();
  for (const auto& [key, n] : blame_) j["blame"].push_back({key.first, key.second, n});
  j["excluded_values"] = nlohmann::json::array();
  for (const auto& [index, values] : excluded_values_)
    j["excluded_values"].push_back({{"index", index}, {"values", values}});
  j["feasible_reports"] = feasible_reports_;
  j["repair_pending"] = repair_pending_;
  j["infeasible_reports"] = infeasible_reports_;
  j["rng"] = rng_.save();
  j["next_order"] = next_order_;
  j["last_change"] = last_change_;
  return j;
}

result<heuristic_mutator> heuristic_mutator::load(const nlohmann::json& j,
                                                  admissibility_check check) {
  if (!j.is_object() || j.value("kind", "") != "heuristic-mutator") {
    return invalid_argument("mutator state: not a heuristic-mutator state");
  }
  if (j.value("version", 0) != 1) {
    return invalid_argument("mutator state: unsupported version " +
                            j.value("version", nlohmann::json()).dump());
  }
  try {
    const nlohmann::json& o = j.at("options");
    mutator_options options;
    options.population = o.at("population").get<uint32_t>();
    options.elite = o.at("elite").get<uint32_t>();
    options.seed = o.at("seed").get<uint64_t>();
    options.element_bytes = o.at("element_bytes").get<uint32_t>();
    options.crossover_rate = o.at("crossover_rate").get<double>();
    options.max_attempts = o.at("max_attempts").get<uint32_t>();
    // Absent from states saved before space-filling samples existed.
    options.initial_samples = o.value("initial_samples", 0u);
    options.data_elements = o.value("data_elements", uint64_t{0});
    // Absent from states saved before the mutator learned feasibility (issue 35).
    options.cores = o.value("cores", 0u);
    options.ub_bytes = o.value("ub_bytes", uint64_t{0});
    options.tile_bytes_per_element = o.value("tile_bytes_per_element", 0u);
    options.region_rejections = o.value("region_rejections", 2u);
    std::vector<tunable> tunables;
    for (const nlohmann::json& t : j.at("tunables")) {
      result<tunable> parsed = tunable_from_json(t);
      if (!parsed.ok()) return parsed.error().with_context("mutator state");
      tunables.push_back(std::move(*parsed));
    }
    heuristic_mutator m(std::move(tunables), options, std::move(check));
    for (const nlohmann::json& p : j.at("population")) {
      m.population_.push_back(member{p.at("values").get<tunable_values>(),
                                     p.at("latency_us").get<double>(),
                                     p.at("order").get<uint64_t>()});
    }
    for (const nlohmann::json& p : j.at("tried")) {
      point values = p.get<point>();
      if (values.size() != m.tunables_.size()) {
        return invalid_argument("mutator state: tried: a value set of the wrong size");
      }
      m.tried_.insert(std::move(values));
    }
    m.samples_.clear();
    for (const nlohmann::json& p : j.value("samples", nlohmann::json::array())) {
      point values = p.get<point>();
      if (values.size() != m.tunables_.size()) {
        return invalid_argument("mutator state: samples: a value set of the wrong size");
      }
      m.samples_.push_back(std::move(values));
    }
    for (const nlohmann::json& f : j.value("infeasible", nlohmann::json::array())) {
      point values = f.at("values").get<point>();
      if (values.size() != m.tunables_.size()) {
        return invalid_argument("mutator state: infeasible: a value set of the wrong size");
      }
      m.infeasible_.emplace_back(std::move(values), f.at("kind").get<std::string>());
    }
    m.rejected_ = j.value("rejected", std::map<std::string, uint32_t>{});
    for (const nlohmann::json& b : j.value("blame", nlohmann::json::array())) {
      const size_t index = b.at(0).get<size_t>();
      if (index >= m.tunables_.size())
        return invalid_argument("mutator state: blame: no tunable " + std::to_string(index));
      m.blame_[{index, b.at(1).get<int64_t>()}] = b.at(2).get<uint32_t>();
    }
    for (const nlohmann::json& e : j.value("excluded_values", nlohmann::json::array())) {
      const size_t index = e.at("index").get<size_t>();
      if (index >= m.tunables_.size())
        return invalid_argument("mutator state: excluded_values: no tunable " +
                                std::to_string(index));
      m.excluded_values_[index] = e.at("values").get<std::set<int64_t>>();
    }
    m.feasible_reports_ = j.value("feasible_reports", 0u);
    m.repair_pending_ = j.value("repair_pending", size_t{0});
    m.infeasible_reports_ = j.value("infeasible_reports", 0u);
    result<seeded_rng> rng = seeded_rng::load(j.at("rng"));
    if (!rng.ok()) return rng.error().with_context("mutator state");
    m.rng_ = std::move(*rng);
    m.next_order_ = j.at("next_order").get<uint64_t>();
    m.last_change_ = j.at("last_change").get<std::string>();
    return m;
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(std::string("mutator state: ") + e.what());
  }
}

}  // namespace aopt::agent
