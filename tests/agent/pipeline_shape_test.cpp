#include <doctest/doctest.h>

#include <map>

#include "agent/episode/pipeline_shape.hpp"

namespace {

using aopt::agent::role_kind;

const std::map<std::string, role_kind> kinds = {{"mutator", role_kind::mutate},
                                                {"diagnoser", role_kind::diagnose},
                                                {"retriever", role_kind::retrieve},
                                                {"refiner", role_kind::refine},
                                                {"rule_refiner", role_kind::refine}};

aopt::result<aopt::agent::pipeline_roles> resolve(const std::vector<std::string>& stage1,
                                                  const std::vector<std::string>& stage2) {
  std::vector<std::string> known;
  for (const auto& [name, k] : kinds) known.push_back(name);
  return aopt::agent::resolve_pipeline(
      stage1, stage2,
      [](const std::string& name) -> std::optional<role_kind> {
        auto it = kinds.find(name);
        if (it == kinds.end()) return std::nullopt;
        return it->second;
      },
      known);
}

// The error message of an invalid pipeline ("" when it is valid).
std::string error_of(const std::vector<std::string>& stage1,
                     const std::vector<std::string>& stage2) {
  auto r = resolve(stage1, stage2);
  return r.ok() ? "" : r.error().message();
}

}  // namespace

TEST_CASE("resolve_pipeline maps the default pipeline and the ablations to roles") {
  auto full = resolve({"mutator"}, {"diagnoser", "retriever", "refiner"});
  REQUIRE(full.ok());
  CHECK(full->mutator == "mutator");
  CHECK(full->diagnoser == "diagnoser");
  CHECK(full->retriever == "retriever");
  CHECK(full->refiner == "refiner");

  auto no_retrieval = resolve({"mutator"}, {"diagnoser", "rule_refiner"});
  REQUIRE(no_retrieval.ok());
  CHECK(!no_retrieval->retriever);
  CHECK(no_retrieval->refiner == "rule_refiner");

  auto refiner_only = resolve({"mutator"}, {"refiner"});
  REQUIRE(refiner_only.ok());
  CHECK(!refiner_only->diagnoser);
  CHECK(!refiner_only->retriever);
}

TEST_CASE("resolve_pipeline names the wrong entry and the reason") {
  CHECK(error_of({}, {"refiner"}).find("pipeline.stage1: must name exactly one role") == 0);
  CHECK(error_of({"refiner"}, {"refiner"}).find("pipeline.stage1[0]: role 'refiner' rewrites") ==
        0);
  CHECK(error_of({"mutator"}, {"diagnoser", "critic"})
            .find("pipeline.stage2[1]: no role 'critic' is registered (known: diagnoser, "
                  "mutator, refiner, retriever, rule_refiner)") == 0);
  CHECK(error_of({"mutator"}, {"retriever", "refiner"})
            .find("pipeline.stage2[0]: role 'retriever' needs a diagnoser before it") == 0);
  CHECK(error_of({"mutator"}, {"refiner", "diagnoser"})
            .find("pipeline.stage2[0]: role 'refiner' must be the last entry") == 0);
  CHECK(error_of({"mutator"}, {"diagnoser", "retriever"}) ==
        "pipeline.stage2: must end with a role that rewrites kernels");
  CHECK(error_of({"mutator"}, {"mutator", "refiner"})
            .find("pipeline.stage2[0]: role 'mutator' mutates tilings") == 0);
  CHECK(error_of({"mutator"}, {"diagnoser", "diagnoser", "refiner"})
            .find("pipeline.stage2[1]: role 'diagnoser' must come first") == 0);
  CHECK(error_of({"mutator"}, {}) == "pipeline.stage2: must name at least the refiner");
}
