// Retriever role: the top-k experience tuples for a diagnosis query (Stage II).
//
//   (retrieve_atom, retrieval_job) -> retrieval_outcome
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "agent/episode/roles.hpp"

namespace aopt::actors {

caf::actor spawn_retriever(caf::actor_system& sys, std::shared_ptr<agent::retriever_policy> policy);

}  // namespace aopt::actors
