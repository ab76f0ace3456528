#include <doctest/doctest.h>

#include "runtime/strategy_comparison.hpp"

namespace {

aopt::agent::episode_state finished_episode(const std::string& op, int level, double baseline_us,
                                            double best_us) {
  aopt::agent::episode_state s;
  s.op_name = op;
  s.level = level;
  s.phase = aopt::agent::episode_phase::done;
  s.baseline_us = baseline_us;
  s.best_us = best_us;
  s.candidates = 4;
  return s;
}

aopt::runtime::report_data campaign(const std::string& id, const std::string& strategy,
                                    double speedup_l1, double speedup_l2) {
  aopt::runtime::report_data d;
  d.campaign = id;
  d.strategy = strategy;
  d.episodes = {finished_episode("a", 1, 100, 100 / speedup_l1),
                finished_episode("b", 2, 50, 50 / speedup_l2)};
  return d;
}

}  // namespace

TEST_CASE("a comparison gives each campaign's geometric mean overall and per level") {
  const auto json = aopt::runtime::comparison_json(
      {campaign("c1", "alternating", 2.0, 1.5), campaign("c2", "stage1", 1.0, 1.21)});
  REQUIRE(json["campaigns"].size() == 2);
  const auto& first = json["campaigns"][0];
  CHECK(first["strategy"] == "alternating");
  CHECK(first["overall"]["geomean_speedup"].get<double>() == doctest::Approx(std::sqrt(3.0)));
  CHECK(first["by_level"]["1"]["geomean_speedup"].get<double>() == doctest::Approx(2.0));
  CHECK(first["by_level"]["2"]["geomean_speedup"].get<double>() == doctest::Approx(1.5));
  const auto& second = json["campaigns"][1];
  CHECK(second["overall"]["fast_p"]["1.2"].get<double>() == doctest::Approx(0.5));
  CHECK(second["overall"]["fast_p"]["1.4"].get<double>() == doctest::Approx(0.0));
}

TEST_CASE("the comparison table has a row per level and an overall row per campaign") {
  const std::string md = aopt::runtime::comparison_markdown(
      {campaign("c1", "alternating", 2.0, 1.5), campaign("c2", "stage2", 1.0, 1.0)});
  CHECK(md.find("| c1 | alternating | 1 | 2.000 |") != std::string::npos);
  CHECK(md.find("| c1 | alternating | all | 1.732 |") != std::string::npos);
  CHECK(md.find("| c2 | stage2 | all | 1.000 |") != std::string::npos);
}
