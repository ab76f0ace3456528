#include "actors/evaluator.hpp"

#include "actors/actor_error.hpp"
#include "actors/device_pool_slots.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

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
  const std::shared_ptr<npu::device> device = context.device;
  auto service = make_evaluation_service(sys, std::move(context));
  return sys.spawn([service, pool,
                    device](evaluator_actor::pointer self) -> evaluator_actor::behavior_type {
    return {
        [=](evaluate_atom, const evaluation_job& job) -> caf::result<evaluation_done> {
          // The plan is a cache key and one store lookup, short enough for the actor's own
          // thread; the device pool is asked without blocking, so no thread of ours waits
          // for the one the pool runs the evaluation on.
          agent::evaluation_plan plan = service->plan(
              {job.op, job.tiling, job.kernel, job.campaign, job.cold, job.validation});
          if (plan.cached) return evaluation_done{std::move(*plan.cached), plan.cache_key};
          auto promise = self->make_response_promise<evaluation_done>();
          self->request(pool, caf::infinite, evaluate_atom_v,
                        make_local(make_pool_work(device, plan.job)))
              .then(
                  [=](evaluation_reply& r) mutable {
                    promise.deliver(evaluation_done{std::move(r.result), plan.cache_key});
                  },
                  [=](caf::error& e) mutable { promise.deliver(to_actor_error(pool_failure(e))); });
          return promise;
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
