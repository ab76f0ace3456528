#include "actors/evaluator.hpp"

#include <stdexcept>

#include "actors/detached_call.hpp"
#include "actors/device_pool_slots.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {
namespace {

evaluation_done evaluate(agent::evaluation_service& service, const evaluation_job& job) {
  result<agent::evaluation> e =
      service.evaluate({job.op, job.tiling, job.kernel, job.campaign, job.cold, job.validation});
  // answer_detached turns this into the evaluation request's error, as for any other failure.
  if (!e.ok()) throw std::runtime_error(e.error().message());
  return {std::move(e->result), e->cache_key};
}

}  // namespace

std::shared_ptr<agent::evaluation_service> make_evaluation_service(caf::actor_system& sys,
                                                                   evaluator_context context) {
  return std::make_shared<agent::evaluation_service>(
      std::make_shared<device_pool_slots>(sys, context.pool, std::move(context.device)),
      std::move(context.cache), context.options);
}

evaluator_actor spawn_evaluator(caf::actor_system& sys, evaluator_context context) {
  // `cache_hits` of the service are this evaluator's, unlike the device pool's counts, which a
  // pool shared by several campaigns sums over all of them.
  const device_pool_actor pool = context.pool;
  auto service = make_evaluation_service(sys, std::move(context));
  return sys.spawn(
      [service, pool](evaluator_actor::pointer self) -> evaluator_actor::behavior_type {
        return {
            [=](evaluate_atom, const evaluation_job& job) -> caf::result<evaluation_done> {
              return answer_detached<evaluation_done>(
                  self, [service, job] { return evaluate(*service, job); });
            },
            [=](stats_atom) -> caf::result<pool_stats> {
              auto promise = self->make_response_promise<pool_stats>();
              self->request(pool, caf::infinite, stats_atom_v)
                  .then(
                      [=](pool_stats s) mutable {
                        s.cache_hits = service->cache_hits();
                        promise.deliver(std::move(s));
                      },
                      [=](caf::error& e) mutable { promise.deliver(std::move(e)); });
              return promise;
            },
        };
      });
}

}  // namespace aopt::actors
