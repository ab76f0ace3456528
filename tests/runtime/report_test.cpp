#include "runtime/report.hpp"

#include <doctest/doctest.h>

namespace {

aopt::agent::episode_state episode(const std::string& op,
                                   std::map<std::string, uint32_t> accepted_by_origin) {
  aopt::agent::episode_state s;
  s.op_name = op;
  s.level = 1;
  s.phase = aopt::agent::episode_phase::done;
  s.baseline_us = 100;
  s.best_us = 80;
  s.candidates = 3;
  s.accepted_by_origin = std::move(accepted_by_origin);
  return s;
}

}  // namespace

TEST_CASE("the report tells which tuples and rules produced the accepted candidates") {
  aopt::runtime::report_data d;
  d.campaign = "c";
  d.strategy = "stage2";
  d.episodes = {
      episode("abs_custom", {{"tuple:t1+rule:single_to_double_buffer", 1}}),
      episode("exp_custom", {{"tuple:t1+rule:single_to_double_buffer", 2}, {"tuple:t2", 1}})};
  const nlohmann::json j = aopt::runtime::report_json(d);
  const nlohmann::json& t1 = j.at("accepted_by_origin").at("tuple:t1+rule:single_to_double_buffer");
  CHECK(t1.at("accepted") == 3);
  CHECK(t1.at("operators") == nlohmann::json::array({"abs_custom", "exp_custom"}));
  CHECK(j.at("accepted_by_origin").at("tuple:t2").at("operators") ==
        nlohmann::json::array({"exp_custom"}));

  const std::string md = aopt::runtime::report_markdown(d);
  CHECK(md.find("| `tuple:t1+rule:single_to_double_buffer` | 3 | abs_custom, exp_custom |") !=
        std::string::npos);
  CHECK(md.find("| `tuple:t2` | 1 | exp_custom |") != std::string::npos);
}

TEST_CASE("a report without accepted candidates has no origin section") {
  aopt::runtime::report_data d;
  d.campaign = "c";
  d.episodes = {episode("abs_custom", {})};
  CHECK(aopt::runtime::report_json(d).at("accepted_by_origin").empty());
  CHECK(aopt::runtime::report_markdown(d).find("Where the speedups came from") ==
        std::string::npos);
}
