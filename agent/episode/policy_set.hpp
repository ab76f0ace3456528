// The policies an episode's roles use, chosen per role from config (heuristic or LLM).
#pragma once

#include <memory>

#include "agent/episode/roles.hpp"

namespace aopt::agent {

struct policy_set {
  std::shared_ptr<mutator_policy> mutator;
  std::shared_ptr<diagnoser_policy> diagnoser;
  std::shared_ptr<retriever_policy> retriever;
  std::shared_ptr<refiner_policy> refiner;
};

}  // namespace aopt::agent
