// `aopt calibrate`: recovering a perturbed profile's assumed constants from synthetic
// measurements generated with it (the calibration's own linear timing surrogate), the rank
// correlation rising, and the fitted profile file written and loadable.
#include "npu/profile_calibration.hpp"

#include <fstream>
#include <random>

#include <doctest/doctest.h>

#include "base/subprocess.hpp"
#include "npu/hardware_profile.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace aopt::npu;

namespace {

const std::vector<std::string> fitted_names = {"launch_base_us", "dma_burst_overhead_cycles",
                                               "vec_startup_cycles", "issue_cycles"};

// A profile file with the built-in default values, the four fitted constants (and one without
// a feature) commented "assumed", the others documented.
fs::path write_profile(const fs::path& dir) {
  nlohmann::json values;
  aopt::sim::to_json(values, aopt::sim::hw_profile{});
  std::ostringstream text;
  text << "name = \"testchip\"\n";
  for (const auto& t : hardware_profile_tables()) {
    text << "\n[" << t.table << "]\n";
    for (const auto& f : t.fields) {
      const bool assumed =
          std::find(fitted_names.begin(), fitted_names.end(), f) != fitted_names.end() ||
          f == "pipe_queue_depth";
      text << f << " = " << values.at(f).dump() << "  # "
           << (assumed ? "assumed (not published)" : "documented") << "\n";
    }
  }
  const fs::path file = dir / "testchip.toml";
  std::ofstream(file) << text.str();
  return file;
}

struct synthetic {
  std::vector<measurement_record> records;
  std::map<std::string, double> truth;
};

// Measurements of 60 candidates on a chip whose fitted constants are the file's times `factor`:
// simulated latency = rest + sum(theta0 x), measured = (rest + sum(theta* x)) (1 + N(0, 0.2 %)).
synthetic make_measurements(const aopt::sim::hw_profile& hw, uint64_t seed) {
  const std::map<std::string, double> factor = {{"launch_base_us", 1.3},
                                                {"dma_burst_overhead_cycles", 0.75},
                                                {"vec_startup_cycles", 1.5},
                                                {"issue_cycles", 0.8}};
  nlohmann::json values;
  aopt::sim::to_json(values, hw);
  synthetic s;
  for (const auto& [name, f] : factor) s.truth[name] = values.at(name).get<double>() * f;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> noise(0, 0.002);
  for (int i = 0; i < 60; ++i) {
    measurement_record r;
    r.op = "op" + std::to_string(i % 5);
    r.has_sim = true;
    r.sim_profile_id = "sim:" + hw.name;
    eval_profile& p = r.sim_profile;
    p.block_dim = 1 + static_cast<uint32_t>(u(rng) * 39);
    p.dma_bursts = static_cast<uint64_t>(100 + u(rng) * 200000);
    p.vector_instructions = static_cast<uint64_t>(100 + u(rng) * 100000);
    p.trace_instructions =
        p.dma_bursts + p.vector_instructions + static_cast<uint64_t>(u(rng) * 200000);
    const double rest = 2 + u(rng) * 100;  // bandwidth and everything else not fitted
    double sim = rest;
    double real = rest;
    for (const auto& name : fitted_names) {
      const double x = calibration_feature(name, p, hw);
      sim += values.at(name).get<double>() * x;
      real += s.truth[name] * x;
    }
    r.sim_latency_us = sim;
    r.measured.measured = true;
    r.measured.median_us = real * (1 + noise(rng));
    s.records.push_back(r);
  }
  return s;
}

}  // namespace

TEST_CASE("calibrate: the constants commented \"assumed\" are the fit's candidates") {
  aopt::testing::temp_dir tmp;
  auto assumed = assumed_constants(write_profile(tmp.path()));
  REQUIRE_MESSAGE(assumed.ok(), assumed.error().to_string());
  std::vector<std::string> expected = fitted_names;
  expected.push_back("pipe_queue_depth");
  std::sort(expected.begin(), expected.end());
  std::sort(assumed->begin(), assumed->end());
  CHECK(*assumed == expected);
}

TEST_CASE("calibrate: a perturbed profile's constants are recovered within 5 %, ranks improve") {
  aopt::testing::temp_dir tmp;
  const fs::path file = write_profile(tmp.path());
  auto hw = load_hardware_profile(file);
  REQUIRE_MESSAGE(hw.ok(), hw.error().to_string());
  auto assumed = assumed_constants(file);
  REQUIRE(assumed.ok());
  const synthetic data = make_measurements(*hw, 42);
  auto fit = calibrate(*hw, *assumed, data.records);
  REQUIRE_MESSAGE(fit.ok(), fit.error().to_string());
  CHECK(fit->used == 60);
  REQUIRE(fit->fitted.size() == 4);
  for (const auto& c : fit->fitted) {
    CAPTURE(c.name);
    CHECK(c.after == doctest::Approx(data.truth.at(c.name)).epsilon(0.05));
    CHECK(std::abs(c.before / data.truth.at(c.name) - 1) > 0.15);  // the prior was far off
  }
  CHECK(fit->assumed_not_fitted == std::vector<std::string>{"pipe_queue_depth"});
  MESSAGE("spearman before " << fit->spearman_before << ", after " << fit->spearman_after);
  CHECK(fit->spearman_after > fit->spearman_before);
  CHECK(fit->spearman_after > 0.95);

  // The written profile loads, holds the fitted values, and marks them fitted, not assumed.
  auto text = write_fitted_profile(file, *fit, "testchip-calibrated", "m.jsonl");
  REQUIRE(text.ok());
  const fs::path out = tmp.path() / "out.toml";
  std::ofstream(out) << *text;
  auto loaded = load_hardware_profile(out);
  REQUIRE_MESSAGE(loaded.ok(), loaded.error().to_string());
  CHECK(loaded->name == "testchip-calibrated");
  CHECK(loaded->vec_startup_cycles ==
        doctest::Approx(fit->profile.vec_startup_cycles).epsilon(1e-5));
  CHECK(loaded->launch_base_us == doctest::Approx(fit->profile.launch_base_us).epsilon(1e-5));
  CHECK(loaded->clock_ghz == hw->clock_ghz);
  auto still_assumed = assumed_constants(out);
  REQUIRE(still_assumed.ok());
  CHECK(*still_assumed == std::vector<std::string>{"pipe_queue_depth"});
}

TEST_CASE("calibrate: too few measurements with a simulator side is an error saying why") {
  aopt::testing::temp_dir tmp;
  const fs::path file = write_profile(tmp.path());
  auto hw = load_hardware_profile(file);
  REQUIRE(hw.ok());
  synthetic data = make_measurements(*hw, 1);
  data.records.resize(5);
  auto fit = calibrate(*hw, fitted_names, data.records);
  REQUIRE_FALSE(fit.ok());
  CHECK(fit.error().message().find("fitting 4 constants needs at least 6") != std::string::npos);
  CHECK(spearman({1, 2, 3}, {10, 30, 20}) == doctest::Approx(0.5));
}

TEST_CASE("aopt calibrate reads a measurements file and writes the fitted profile") {
  aopt::testing::temp_dir tmp;
  const fs::path file = write_profile(tmp.path());
  auto hw = load_hardware_profile(file);
  REQUIRE(hw.ok());
  const synthetic data = make_measurements(*hw, 7);
  const fs::path jsonl = tmp.path() / "measurements.jsonl";
  {
    std::ofstream out(jsonl);
    for (const auto& r : data.records) out << to_json(r).dump() << "\n";
    measurement_record hardware_only = data.records.front();
    hardware_only.has_sim = false;
    out << to_json(hardware_only).dump() << "\n";
  }
  auto back = read_measurements(jsonl);
  REQUIRE_MESSAGE(back.ok(), back.error().to_string());
  CHECK(back->size() == 61);
  CHECK(back->front().sim_profile.dma_bursts == data.records.front().sim_profile.dma_bursts);

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
  CHECK(ran->stdout_text.find("spearman") != std::string::npos);
  CHECK(load_hardware_profile(out).ok());

  std::ofstream(jsonl, std::ios::app) << "{\"op\": 3}\n";
  o.argv = {AOPT_BINARY, "calibrate", "--from", jsonl.string(), "--profile", file.string()};
  ran = aopt::run_subprocess(o);
  REQUIRE(ran.ok());
  CHECK(ran->exit_code == 2);
  CHECK(ran->stderr_text.find("measurements.jsonl:62") != std::string::npos);
}
