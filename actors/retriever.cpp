#include "actors/retriever.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

caf::actor spawn_retriever(caf::actor_system& sys,
                           std::shared_ptr<agent::retriever_policy> policy) {
  return spawn_policy_actor<retrieve_atom, retrieval_job, retrieval_outcome>(
      sys, [policy](const retrieval_job& job) {
        return make_local(policy->retrieve(job.value->query, job.value->top_k));
      });
}

}  // namespace aopt::actors
