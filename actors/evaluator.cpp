#include "actors/evaluator.hpp"

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {
namespace {

evaluation_done evaluate(const evaluator_context& ctx, const evaluation_job& job) {
  evaluation_done done;
  done.cache_key =
      agent::eval_cache_key(ctx.device->profile_id(), *job.op, job.tiling, job.kernel, ctx.options);
  npu::eval_result result;
  std::optional<npu::eval_result> cached =
      ctx.cache ? ctx.cache->lookup(done.cache_key) : std::nullopt;
  if (cached) {
    result = *cached;
    result.from_cache = true;
  } else {
    agent::device_slots::lease slot(*ctx.slots);
    result = ctx.device->evaluate(*job.op, job.tiling, job.kernel, ctx.options);
  }
  done.result_json = nlohmann::json(result).dump();
  return done;
}

}  // namespace

caf::actor spawn_evaluator(caf::actor_system& sys, evaluator_context context) {
  auto ctx = std::make_shared<const evaluator_context>(std::move(context));
  return sys.spawn([ctx](caf::event_based_actor* self) -> caf::behavior {
    return {
        [=](evaluate_atom, const evaluation_job& job) {
          return answer_detached<evaluation_done>(self, [ctx, job] { return evaluate(*ctx, job); });
        },
        [=](stats_atom) {
          agent::slot_stats s = ctx->slots->stats();
          return pool_stats{s.slots,     s.in_flight, s.max_in_flight, s.waiting,
                            s.completed, 0,           s.busy_seconds};
        },
    };
  });
}

}  // namespace aopt::actors
