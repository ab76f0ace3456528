#include "actors/retriever.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

retriever_actor spawn_retriever(caf::actor_system& sys,
                                std::shared_ptr<agent::retriever_policy> policy) {
  return spawn_policy_actor<retriever_actor, retrieve_atom, retrieval_job>(
      sys, [policy](const retrieval_job& job) {
        return make_local(policy->retrieve(job.value->query, job.value->top_k));
      });
}

}  // namespace aopt::actors
