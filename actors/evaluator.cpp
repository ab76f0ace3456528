#include "actors/evaluator.hpp"

#include <atomic>

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"
#include "base/utf8.hpp"

namespace aopt::actors {
namespace {

// `cache_hits` counts the jobs answered from the evaluation cache: this evaluator's, unlike the
// device pool's counts, which a pool shared by several campaigns sums over all of them.
evaluation_done evaluate(const evaluator_context& ctx, const evaluation_job& job,
                         std::atomic<uint64_t>& cache_hits) {
  evaluation_done done;
  done.cache_key =
      agent::eval_cache_key(ctx.device->profile_id(), *job.op, job.tiling, job.kernel, ctx.options);
  npu::eval_result result;
  std::optional<npu::eval_result> cached =
      ctx.cache && !job.cold && !job.validation ? ctx.cache->lookup(done.cache_key)
                                                : std::nullopt;
  if (cached) {
    result = *cached;
    result.from_cache = true;
    ++cache_hits;
  } else {
    npu::eval_options options = ctx.options;
    options.cold = job.cold;
    agent::device_slots::lease slot(*ctx.slots, job.cold         ? agent::slot_use::confirmation
                                                : job.validation ? agent::slot_use::validation
                                                                 : agent::slot_use::candidate);
    result = ctx.device->evaluate(*job.op, job.tiling, job.kernel, options);
  }
  done.result_json = dump_json(nlohmann::json(result));
  return done;
}

}  // namespace

caf::actor spawn_evaluator(caf::actor_system& sys, evaluator_context context) {
  auto ctx = std::make_shared<const evaluator_context>(std::move(context));
  auto cache_hits = std::make_shared<std::atomic<uint64_t>>(0);
  return sys.spawn([ctx, cache_hits](caf::event_based_actor* self) -> caf::behavior {
    return {
        [=](evaluate_atom, const evaluation_job& job) {
          return answer_detached<evaluation_done>(
              self, [ctx, job, cache_hits] { return evaluate(*ctx, job, *cache_hits); });
        },
        [=](stats_atom) {
          agent::slot_stats s = ctx->slots->stats();
          return pool_stats{s.slots,     s.in_flight,        s.max_in_flight,   s.waiting,
                            s.completed, cache_hits->load(), s.confirmations,
                            s.validations, s.busy_seconds};
        },
    };
  });
}

}  // namespace aopt::actors
