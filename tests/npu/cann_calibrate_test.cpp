// `aopt calibrate`: recovering the assumed constants of a perturbed profile from synthetic
// measurements generated with it. The "chip" is the simulator's own timing model (replay_core +
// combine_cores) run on synthetic kernel traces with the perturbed constants; the simulator's
// side is the same traces timed with the shipped profile (config/hardware/ascend910b4.toml),
// with the latency sensitivities the simulator records. So the test exercises the real timing
// model and the real features, not a surrogate; it cannot tell whether the model matches a chip.
#include "npu/profile_calibration.hpp"

#include <fstream>
#include <random>
#include <set>

#include <doctest/doctest.h>

#include "base/subprocess.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/runtime/timing_sensitivity.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace aopt::npu;
namespace sim = aopt::sim;

namespace {

const fs::path shipped_profile =
    fs::path(AOPT_TEST_DATA_DIR) / ".." / ".." / "config" / "hardware" / "ascend910b4.toml";

// The chip: every constant the shipped profile marks "assumed" and the timing model charges
// linearly, off by 20 % to 50 %.
const std::map<std::string, double> perturbation = {
    {"launch_base_us", 1.3},
    {"dma_latency_cycles", 1.4},
    {"dma_burst_overhead_cycles", 0.75},
    {"dma_short_burst_penalty", 1.25},
    {"vec_startup_cycles", 1.5},
    {"vec_mul_cycles_per_repeat", 1.4},
    {"vec_div_transcendental_cycles_per_repeat", 0.7},
    {"vec_cast_cycles_per_repeat", 1.3},
    {"vec_compare_select_cycles_per_repeat", 0.75},
    {"issue_cycles", 1.5},
    {"scalar_ub_access_cycles", 0.8},
    {"scalar_gm_access_cycles", 1.25},
};

// The cube's constants the shipped profile marks "assumed": candidates too, but the synthetic
// kernels are all vector ones, so none of them is fitted.
const std::set<std::string> cube_assumed = {"bias_table_bytes",      "cube_f32_macs_per_cycle",
                                            "cube_startup_cycles",   "mte1_bytes_per_cycle",
                                            "mte1_latency_cycles",   "fixpipe_bytes_per_cycle",
                                            "fixpipe_latency_cycles"};

fs::path copy_profile(const fs::path& dir) {
  const fs::path file = dir / "ascend910b4.toml";
  fs::copy_file(shipped_profile, file);
  return file;
}

sim::hw_profile perturbed(const sim::hw_profile& hw) {
  nlohmann::json values;
  sim::to_json(values, hw);
  for (const auto& [name, f] : perturbation) values[name] = values.at(name).get<double>() * f;
  sim::hw_profile out = hw;
  sim::from_json(values, out);
  return out;
}

// A random kernel of 1-8 identical cores: tiles of copy-in, vector instructions of random
// classes and lengths, scalar UB/GM accesses, copy-out; each instruction waits for the one
// before it (a kernel without double buffering), so the critical path holds every cost. Each
// kernel draws its own mix (DMA-, vector- or scalar-heavy), so every constant dominates some.
std::vector<sim::core_trace> random_kernel(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> pick(0, 1 << 20);
  auto in = [&](int lo, int hi) { return lo + pick(rng) % (hi - lo + 1); };
  // Per kernel: how many instructions of each kind a tile has, log-uniform over 1..2^max.
  auto intensity = [&](int max_log2) { return 1 << in(0, max_log2); };
  const int dma_per_tile = in(0, 1) ? 1 : intensity(3);
  const int vector_per_class = intensity(4);
  const int scalar_ub_calls = in(0, 2) == 0 ? 0 : intensity(6);
  const int scalar_gm_calls = in(0, 2) == 0 ? 0 : intensity(2);
  const int max_repeats = intensity(7);
  const sim::op_class vector_classes[] = {
      sim::op_class::vec_simple, sim::op_class::vec_mul,  sim::op_class::vec_div_transcendental,
      sim::op_class::vec_reduce, sim::op_class::vec_cast, sim::op_class::vec_compare_select};
  sim::core_trace t;
  auto push = [&](sim::instruction i) {
    if (!t.instructions.empty()) i.deps = {static_cast<uint32_t>(t.instructions.size() - 1)};
    t.instructions.push_back(std::move(i));
  };
  auto dma = [&](sim::op_class cls, sim::pipe on) {
    sim::instruction i;
    i.cls = cls;
    i.on = on;
    i.bursts = static_cast<uint32_t>(in(1, 16));
    i.min_burst_bytes = static_cast<uint32_t>(32 * in(2, 40));  // some below 512 bytes
    i.bytes = static_cast<uint64_t>(i.bursts) * i.min_burst_bytes;
    push(i);
  };
  const int tiles = in(1, 4);
  for (int tile = 0; tile < tiles; ++tile) {
    for (int d = 0; d < dma_per_tile; ++d) dma(sim::op_class::dma_in, sim::pipe::mte2);
    for (sim::op_class cls : vector_classes) {
      for (int v = in(0, vector_per_class); v > 0; --v) {
        sim::instruction i;
        i.on = sim::pipe::v;
        i.cls = cls;
        i.repeats = static_cast<uint32_t>(in(1, max_repeats));
        i.bytes = i.repeats * 256ull;
        push(i);
        // Scalar work between vector instructions puts issue slots on the critical path.
        if (scalar_ub_calls > 0 && in(0, 1)) {
          sim::instruction s;
          s.on = sim::pipe::s;
          s.cls = sim::op_class::scalar_ub;
          s.count = static_cast<uint64_t>(in(1, scalar_ub_calls));
          push(s);
        }
      }
    }
    if (scalar_gm_calls > 0) {
      sim::instruction i;
      i.on = sim::pipe::s;
      i.cls = sim::op_class::scalar_gm;
      i.count = static_cast<uint64_t>(in(1, scalar_gm_calls));
      push(i);
    }
    for (int d = 0; d < dma_per_tile; ++d) dma(sim::op_class::dma_out, sim::pipe::mte3);
  }
  for (const auto& i : t.instructions) {
    if (i.cls == sim::op_class::dma_in) t.gm_read_bytes += i.bytes;
    if (i.cls == sim::op_class::dma_out) t.gm_write_bytes += i.bytes;
  }
  std::vector<sim::core_trace> cores(static_cast<size_t>(in(1, 8)), t);
  for (size_t b = 0; b < cores.size(); ++b) cores[b].block_idx = static_cast<uint32_t>(b);
  return cores;
}

// `count` candidates: the simulator's side (latency and sensitivities with `hw`), the
// measurement (the perturbed chip's latency x (1 + N(0, 0.05 %)), the noise of a median over
// many samples).
std::vector<measurement_record> make_measurements(const sim::hw_profile& hw, size_t count,
                                                  uint64_t seed, double noise_fraction = 0.0005) {
  const sim::hw_profile chip = perturbed(hw);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, noise_fraction);
  std::vector<measurement_record> out;
  for (size_t k = 0; k < count; ++k) {
    const std::vector<sim::core_trace> kernel = random_kernel(rng);
    measurement_record r;
    r.op = "op" + std::to_string(k % 5);
    r.has_sim = true;
    r.sim_profile_id = "sim:" + hw.name;
    r.sim_latency_us = sim::simulated_latency_us(kernel, hw);
    r.sim_profile.block_dim = static_cast<uint32_t>(kernel.size());
    for (const auto& [name, slope] : sim::latency_sensitivities(kernel, hw)) {
      r.sim_profile.latency_sensitivity[name] = slope;
    }
    r.measured.measured = true;
    r.measured.median_us = sim::simulated_latency_us(kernel, chip) * (1 + noise(rng));
    out.push_back(r);
  }
  return out;
}

sim::hw_profile load_profile(const fs::path& file) {
  auto hw = load_hardware_profile(file);
  REQUIRE_MESSAGE(hw.ok(), hw.error().to_string());
  return *hw;
}

}  // namespace

TEST_CASE("calibrate: the shipped profile's \"assumed\" constants are the fit's candidates") {
  auto assumed = assumed_constants(shipped_profile);
  REQUIRE_MESSAGE(assumed.ok(), assumed.error().to_string());
  std::vector<std::string> expected = {"dma_efficient_burst_bytes", "pipe_queue_depth"};
  for (const auto& [name, f] : perturbation) expected.push_back(name);
  expected.insert(expected.end(), cube_assumed.begin(), cube_assumed.end());
  std::sort(expected.begin(), expected.end());
  std::sort(assumed->begin(), assumed->end());
  CHECK(*assumed == expected);
}

TEST_CASE("calibrate: a perturbed profile's constants are recovered within 5 %, ranks improve") {
  aopt::testing::temp_dir tmp;
  const fs::path file = copy_profile(tmp.path());
  const sim::hw_profile hw = load_profile(file);
  auto assumed = assumed_constants(file);
  REQUIRE(assumed.ok());
  const std::vector<measurement_record> data = make_measurements(hw, 200, 42);
  auto fit = calibrate(hw, *assumed, data);
  REQUIRE_MESSAGE(fit.ok(), fit.error().to_string());
  CHECK(fit->used == 200);
  for (const auto& n : fit->notes) MESSAGE(n);
  for (const auto& u : fit->assumed_not_fitted) MESSAGE(u.name << ": " << u.reason);
  REQUIRE(fit->fitted.size() == perturbation.size());
  nlohmann::json values;
  sim::to_json(values, hw);
  for (const auto& c : fit->fitted) {
    CAPTURE(c.name);
    const double truth = values.at(c.name).get<double>() * perturbation.at(c.name);
    MESSAGE(c.name << ": " << c.before << " -> " << c.after << " (truth " << truth << ")");
    CHECK(c.before == values.at(c.name).get<double>());
    CHECK(c.after == doctest::Approx(truth).epsilon(0.05));
  }
  // The two the timing model uses as threshold and integer, with the reason; and the cube's,
  // which no vector kernel exercises or which are not per-event costs.
  REQUIRE(fit->assumed_not_fitted.size() == 2 + cube_assumed.size());
  for (const auto& u : fit->assumed_not_fitted) {
    CAPTURE(u.name);
    if (cube_assumed.count(u.name) != 0) continue;
    CHECK((u.name == "dma_efficient_burst_bytes" || u.name == "pipe_queue_depth"));
    CHECK(u.reason.find("piecewise constant") != std::string::npos);
  }
  MESSAGE("spearman before " << fit->spearman_before << ", after " << fit->spearman_after);
  CHECK(fit->spearman_after > fit->spearman_before);
  CHECK(fit->spearman_after > 0.999);

  // The written profile loads, holds the fitted values, and marks them fitted, not assumed.
  auto text = write_fitted_profile(file, *fit, "ascend910b4-calibrated", "m.jsonl");
  REQUIRE(text.ok());
  const fs::path out = tmp.path() / "out.toml";
  std::ofstream(out) << *text;
  const sim::hw_profile loaded = load_profile(out);
  CHECK(loaded.name == "ascend910b4-calibrated");
  CHECK(loaded.vec_startup_cycles ==
        doctest::Approx(fit->profile.vec_startup_cycles).epsilon(1e-5));
  CHECK(loaded.dma_latency_cycles ==
        doctest::Approx(fit->profile.dma_latency_cycles).epsilon(1e-5));
  CHECK(loaded.clock_ghz == hw.clock_ghz);
  auto still_assumed = assumed_constants(out);
  REQUIRE(still_assumed.ok());
  std::vector<std::string> unfitted = {"dma_efficient_burst_bytes", "pipe_queue_depth"};
  unfitted.insert(unfitted.end(), cube_assumed.begin(), cube_assumed.end());
  std::sort(unfitted.begin(), unfitted.end());
  std::sort(still_assumed->begin(), still_assumed->end());
  CHECK(*still_assumed == unfitted);
}

TEST_CASE("calibrate: constants the measurements cannot separate or do not exercise are named") {
  const sim::hw_profile hw;
  // vec_cast always moves latency twice as much as vec_mul; nothing uses scalar GM accesses.
  std::vector<measurement_record> records;
  for (int i = 0; i < 10; ++i) {
    measurement_record r;
    r.has_sim = true;
    r.sim_latency_us = 10 + i;
    r.measured.median_us = 12 + 1.1 * i;
    r.sim_profile.latency_sensitivity = {{"launch_base_us", 1.0},
                                         {"vec_mul_cycles_per_repeat", 0.1 * (i + 1)},
                                         {"vec_cast_cycles_per_repeat", 0.1 * (i + 1)},
                                         {"scalar_gm_access_cycles", 0.0}};
    records.push_back(r);
  }
  // vec_cast's value is twice vec_mul's: equal sensitivities give columns in ratio 2.
  auto fit = calibrate(hw,
                       {"launch_base_us", "vec_mul_cycles_per_repeat", "vec_cast_cycles_per_repeat",
                        "scalar_gm_access_cycles", "pipe_queue_depth"},
                       records);
  REQUIRE_MESSAGE(fit.ok(), fit.error().to_string());
  REQUIRE(fit->fitted.size() == 2);
  REQUIRE(fit->assumed_not_fitted.size() == 3);
  std::map<std::string, std::string> why;
  for (const auto& u : fit->assumed_not_fitted) why[u.name] = u.reason;
  CHECK(why["vec_cast_cycles_per_repeat"].find("linear combination of that of "
                                               "launch_base_us, vec_mul_cycles_per_repeat") !=
        std::string::npos);
  CHECK(why["scalar_gm_access_cycles"].find("no measured candidate exercises it") !=
        std::string::npos);
  CHECK(why["pipe_queue_depth"].find("integer") != std::string::npos);
}

TEST_CASE("calibrate: constants whose effect is lost in the noise are dropped and named") {
  // 2 % noise on 60 measurements: the small costs cannot be told from noise.
  const sim::hw_profile hw = load_profile(shipped_profile);
  auto assumed = assumed_constants(shipped_profile);
  REQUIRE(assumed.ok());
  auto fit = calibrate(hw, *assumed, make_measurements(hw, 60, 3, 0.02));
  REQUIRE_MESSAGE(fit.ok(), fit.error().to_string());
  size_t noisy = 0;
  for (const auto& u : fit->assumed_not_fitted) {
    noisy += u.reason.find("within their noise") != std::string::npos;
  }
  CHECK(noisy > 0);
  CHECK(fit->fitted.size() + noisy == perturbation.size());
}

TEST_CASE("calibrate: too few measurements with a simulator side is an error saying why") {
  const sim::hw_profile hw = load_profile(shipped_profile);
  std::vector<measurement_record> data = make_measurements(hw, 5, 1);
  auto fit = calibrate(
      hw, {"launch_base_us", "dma_latency_cycles", "vec_startup_cycles", "issue_cycles"}, data);
  REQUIRE_FALSE(fit.ok());
  CHECK(fit.error().message().find("fitting 4 constants needs at least 6") != std::string::npos);
  CHECK(spearman({1, 2, 3}, {10, 30, 20}) == doctest::Approx(0.5));
}

TEST_CASE("aopt calibrate reads a measurements file and writes the fitted profile") {
  aopt::testing::temp_dir tmp;
  const fs::path file = copy_profile(tmp.path());
  const std::vector<measurement_record> data = make_measurements(load_profile(file), 60, 7);
  const fs::path jsonl = tmp.path() / "measurements.jsonl";
  {
    std::ofstream out(jsonl);
    for (const auto& r : data) out << to_json(r).dump() << "\n";
    measurement_record hardware_only = data.front();
    hardware_only.has_sim = false;
    out << to_json(hardware_only).dump() << "\n";
  }
  auto back = read_measurements(jsonl);
  REQUIRE_MESSAGE(back.ok(), back.error().to_string());
  CHECK(back->size() == 61);
  CHECK(back->front().sim_profile.latency_sensitivity ==
        data.front().sim_profile.latency_sensitivity);

  const fs::path out = tmp.path() / "fitted.toml";
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY, "calibrate",   "--from", jsonl.string(),
            "--profile", file.string(), "--out",  out.string()};
  auto ran = aopt::run_subprocess(o);
  REQUIRE(ran.ok());
  INFO(ran->stdout_text << ran->stderr_text);
  CHECK(ran->exit_code == 0);
  CHECK(ran->stdout_text.find("measurements 60 used of 61 (1 without the simulator's side") !=
        std::string::npos);
  CHECK(ran->stdout_text.find("pipe_queue_depth             assumed, not fitted: an integer") !=
        std::string::npos);
  CHECK(ran->stdout_text.find("spearman") != std::string::npos);
  CHECK(load_hardware_profile(out).ok());

  std::ofstream(jsonl, std::ios::app) << "{\"op\": 3}\n";
  o.argv = {AOPT_BINARY, "calibrate", "--from", jsonl.string(), "--profile", file.string()};
  ran = aopt::run_subprocess(o);
  REQUIRE(ran.ok());
  CHECK(ran->exit_code == 2);
  CHECK(ran->stderr_text.find("measurements.jsonl:62") != std::string::npos);
}
