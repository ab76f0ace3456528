#include "actors/rewinder.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

rewinder_actor spawn_rewinder(caf::actor_system& sys, rewinder_context context) {
  auto ctx = std::make_shared<const rewinder_context>(std::move(context));
  return spawn_policy_actor<rewinder_actor, rewind_atom, rewind_job>(
      sys, [ctx](const rewind_job& job) {
        return make_local(agent::rewind_and_distill(
            *ctx->evaluations, job.value, ctx->proposer(job.value), ctx->distill, ctx->options));
      });
}

}  // namespace aopt::actors
