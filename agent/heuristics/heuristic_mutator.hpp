// The heuristic mutator: evolutionary search over the tunables of a tiling program (Stage I of
// the paper with parametric mutation instead of an LLM). Named "heuristic-mutator" wherever it
// appears.
//
// The population holds the feasible value sets seen so far, fastest first (ties: earlier
// first), at most `population` of them; the first `elite` are the elites. The first
// `initial_samples` proposals are a seeded Latin-hypercube sample of the whole space
// (log-scaled for pow2 tunables and wide ranges), so that a small budget explores the space
// instead of the start's neighbourhood. Then propose() builds one new value set:
//   * crossover (probability crossover_rate, needs two elites): each tunable from one of two
//     distinct elites, then one extra perturbation when the child equals a parent;
//   * otherwise perturbation of a parent (an elite with probability 3/4, else any member; the
//     initial values while the population is empty) in one tunable, or two with probability
//     0.35 when there are several:
//       pow2    x2 or /2 (x4 or /4 with probability 0.2)
//       range   wide ranges (lo >= 1, hi >= 16 lo; not block dims) half of the time
//               multiplicatively, by a factor in [1.2, 4); otherwise +-1 step (p 0.5), +-k
//               steps with k in [2, max(2, steps/4)] (p 0.35), or a uniform value (p 0.15)
//       choice  another choice, uniformly
// Alignment: a tile-size tunable (tiling_names.hpp) is moved to the nearest admissible multiple
// of 32 / element_bytes elements; a tile-count tunable to the nearest value dividing
// data_elements (when known), searching first in the direction it moved.
// The admissibility hook (e.g. make_ub_capacity_check) screens value sets before the device and
// says why one is not worth evaluating; screened-out sets are counted by reason (rejected()).
// Infeasible reports teach the mutator regions, not just points: after a UB failure (ub_overflow,
// ub_out_of_bounds, too_many_buffers) no value set with every tile-size, buffer-number and UB
// tunable at least as large (block dims free, every other tunable at its failed value) is
// proposed; after bad_block_dim none with every block-dim tunable at least as large. A value set is
// never proposed twice: every proposal and every report enters the tried set. After max_attempts
// rejected draws the mutator scans the neighbourhood of the population systematically; propose()
// returns nullopt only when that finds nothing untried either.
//
// Learning feasibility (issue 35):
//   * roles come from tunable_role (what synthesis recorded, else the name), so a synthesized
//     tunable whose name says nothing is still understood;
//   * block-dim tunables stay in [1, cores] by construction when the cores are known;
//   * a value set the admissibility hook screens out teaches its region like a device failure
//     (kind without " (predicted)"), so one region costs one screening, not thousands;
//   * a failure whose value set differs from a feasible member in one tunable only is blamed on
//     that tunable's value; after `region_rejections` (k) such failures of one value, no value
//     set holding it is proposed again (the region of any other kind);
//   * when fewer than half of the reported candidates (at least 4) were feasible, proposals are
//     constructive: one tunable moved to a value that satisfies the failing constraint by
//     construction (multiples of its alignment block: 32 bytes of the smallest element for
//     tile sizes, the largest power of two dividing its start value, up to 256, for others;
//     tiles derived from the UB budget; block dims within the cores);
//   * baseline repair (begin_repair): the moves that reduce the failing quantity (UB bytes:
//     smaller tiles, fewer buffers, a smaller UB budget, more tiles; block dim: within the
//     cores; alignment: the aligned neighbours; coverage: more cores, larger tiles) come first,
//     one tunable at a time, then together, each screened by the hook before the device.
//
// Persistence: save() captures everything (tunables, options, population, tried set, RNG
// position); load(save()) continues with exactly the proposals the original would have made.
// The hook is configuration, not state: pass the same one to load().
//
// Thread-safety: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/seeded_rng.hpp"
#include "agent/kernel_text/tiling_names.hpp"
#include "agent/kernel_text/tunables.hpp"
#include "base/status.hpp"

namespace aopt::agent {

struct mutator_options {
  uint32_t population = 8;  // feasible members kept (>= 1)
  uint32_t elite = 2;       // best members parents and crossover draw from (>= 1)
  uint64_t seed = 1;
  uint32_t element_bytes = 2;  // smallest element size of the operator's tensors
  double crossover_rate = 0.3;
  uint32_t max_attempts = 64;           // random draws per proposal before the systematic scan
  uint32_t initial_samples = 6;         // space-filling proposals first (0: none)
  uint64_t data_elements = 0;           // elements of the largest tensor (0: unknown)
  uint32_t cores = 0;                   // block dims stay in [1, cores] (0: unknown)
  uint64_t ub_bytes = 0;                // UB capacity, for tiles derived from it (0: unknown)
  uint32_t tile_bytes_per_element = 0;  // bytes one tile element takes over all tensors
  uint32_t region_rejections = 2;       // k: blamed failures of one value that exclude it
};

// The role a tunable plays: what template synthesis recorded in its note ("core cap: ...",
// "buffer depth: ...", "tile size: ...", "tile count: ...", "UB budget: ..."), else its name
// (classify_tiling_name).
tiling_role tunable_role(const tunable& t);

// Why a value set is not worth evaluating ("ub_overflow (predicted): ..."), empty when it is.
using admissibility_check = std::function<std::string(const tunable_values&)>;

// Screens value sets before the device, as far as the tunables show it:
//   * the tiles must fit the UB: the first tile-size tunable times the buffer-number tunable
//     (1 when absent) times `bytes_per_element` (summed over the tensors that hold a tile, e.g.
//     6 for two half inputs and one half output) must not exceed `ub_bytes` (0: not checked);
//   * a block-dim tunable must lie in [1, cores] (cores 0: not checked).
// Value sets without such tunables are always admissible.
admissibility_check make_ub_capacity_check(const std::vector<tunable>& tunables, uint64_t ub_bytes,
                                           uint32_t bytes_per_element, uint32_t cores = 0);

class heuristic_mutator {
 public:
  struct member {
    tunable_values values;
    double latency_us = 0;
    uint64_t order = 0;  // report order, the tie-break
  };

  // `tunables` carry the initial values (the parent while the population is empty); they are
  // marked tried. REQUIRES: options.population >= 1, options.elite >= 1.
  heuristic_mutator(std::vector<tunable> tunables, mutator_options options,
                    admissibility_check check = {});

  // A new value set for every tunable, or nullopt when the search space is exhausted.
  std::optional<tunable_values> propose();
  // How the last proposal was made, e.g. "perturb TILE_LENGTH 2048->4096 (parent #1)".
  const std::string& last_change() const { return last_change_; }

  // The outcome of evaluating `values` (nullopt: infeasible, `failure` its error kind, e.g.
  // "ub_overflow"). Missing names take their initial value; unknown names are ignored.
  // Reporting the initial values with the baseline latency seeds the population.
  void report(const tunable_values& values, std::optional<double> latency_us,
              const std::string& failure = {});

  const std::vector<tunable>& tunables() const { return tunables_; }
  const std::vector<member>& population() const { return population_; }
  std::optional<member> best() const;
  bool tried(const tunable_values& values) const;
  size_t tried_count() const { return tried_.size(); }
  // Value sets the admissibility hook screened out, by reason (cumulative).
  const std::map<std::string, uint32_t>& rejected() const { return rejected_; }
  // Baseline repair: the start values failed with `kind` (ub_overflow, bad_block_dim,
  // misaligned, uncovered, ...): the moves that reduce the failing quantity are proposed first.
  void begin_repair(const std::string& kind);
  // Whether a value set lies in a region learned from failures (never proposed).
  bool excluded(const tunable_values& values) const;
  // Whether proposals are constructive now (fewer than half of the reports feasible).
  bool constructive() const;
  const mutator_options& options() const { return options_; }

  nlohmann::json save() const;
  // invalid_argument naming the field when `j` is not a saved mutator.
  static result<heuristic_mutator> load(const nlohmann::json& j, admissibility_check check = {});

 private:
  using point = std::vector<int64_t>;  // values in tunable order

  point to_point(const tunable_values& values) const;
  tunable_values to_values(const point& p) const;
  std::optional<point> draw_candidate(std::string& how);
  std::optional<point> scan_neighbourhood();
  int64_t perturb(size_t index, int64_t value);
  int64_t align(size_t index, int64_t value, int64_t previous) const;
  bool acceptable(const point& p);
  bool in_infeasible_region(const point& p) const;
  void learn_failure(const point& p, const std::string& kind);
  std::optional<point> constructive_candidate(std::string& how);
  std::vector<int64_t> constructive_values(size_t index, const point& parent);
  int64_t alignment_block(size_t index) const;
  void make_initial_samples();
  std::string describe(const point& parent, const point& child) const;

  std::vector<tunable> tunables_;
  mutator_options options_;
  admissibility_check check_;
  seeded_rng rng_;
  point initial_;
  std::vector<member> population_;
  std::set<point> tried_;
  std::vector<point> samples_;  // space-filling proposals not made yet, next first
  std::vector<std::pair<point, std::string>> infeasible_;  // reported failures and their kind
  std::map<std::string, uint32_t> rejected_;
  std::map<std::pair<size_t, int64_t>, uint32_t> blame_;  // (tunable, value): failures blamed
  std::map<size_t, std::set<int64_t>> excluded_values_;   // reached region_rejections
  uint32_t feasible_reports_ = 0;
  uint32_t infeasible_reports_ = 0;
  size_t repair_pending_ = 0;  // repair moves at the front of samples_ not proposed yet
  uint64_t next_order_ = 0;
  std::string last_change_;
};

}  // namespace aopt::agent
