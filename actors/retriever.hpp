// Retriever role: the top-k experience tuples for a diagnosis query (Stage II).
//
//   (retrieve_atom, retrieval_job) -> retrieval_outcome
#pragma once

#include <memory>

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "agent/episode/roles.hpp"

namespace aopt::actors {

using retriever_actor =
    caf::typed_actor<caf::replies_to<retrieve_atom, retrieval_job>::with<retrieval_outcome>>;

retriever_actor spawn_retriever(caf::actor_system& sys,
                                std::shared_ptr<agent::retriever_policy> policy);

}  // namespace aopt::actors
