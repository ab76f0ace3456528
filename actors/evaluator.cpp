#include "actors/evaluator.hpp"

#include <atomic>
#include <stdexcept>

#include "actors/detached_call.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {
namespace {

// The result of evaluating `job` on a slot the device pool leases: this process's device, or a
// remote worker's (which gets the package's sources by content hash).
npu::eval_result evaluate_on_pool(caf::actor_system& sys, const evaluator_context& ctx,
                                  const evaluation_job& job, const npu::eval_options& options) {
  auto sources = std::make_shared<const npu::package_sources>(npu::sources_of(*job.op));
  pool_work work;
  work.request = {0,       job.campaign,  npu::package_hash(*sources), job.tiling, job.kernel,
                  options, job.validation};
  work.sources = sources;
  work.run_here = [device = ctx.device, op = job.op, job, options] {
    return device->evaluate(*op, job.tiling, job.kernel, options);
  };
  npu::eval_result result;
  std::string failure;
  caf::scoped_actor self{sys};
  self->request(ctx.pool, caf::infinite, evaluate_atom_v, make_local(std::move(work)))
      .receive([&](evaluation_reply& r) { result = std::move(r.result); },
               [&](caf::error& e) { failure = sys.render(e); });
  // answer_detached turns this into the evaluation request's error.
  if (!failure.empty()) throw std::runtime_error("device pool: " + failure);
  return result;
}

// `cache_hits` counts the jobs answered from the evaluation cache: this evaluator's, unlike the
// device pool's counts, which a pool shared by several campaigns sums over all of them.
evaluation_done evaluate(caf::actor_system& sys, const evaluator_context& ctx,
                         const evaluation_job& job, std::atomic<uint64_t>& cache_hits) {
  evaluation_done done;
  done.cache_key =
      agent::eval_cache_key(ctx.device->profile_id(), *job.op, job.tiling, job.kernel, ctx.options);
  std::optional<npu::eval_result> cached =
      ctx.cache && !job.cold && !job.validation ? ctx.cache->lookup(done.cache_key) : std::nullopt;
  if (cached) {
    done.result = std::move(*cached);
    done.result.from_cache = true;
    ++cache_hits;
    return done;
  }
  npu::eval_options options = ctx.options;
  options.cold = job.cold;
  done.result = evaluate_on_pool(sys, ctx, job, options);
  return done;
}

}  // namespace

caf::actor spawn_evaluator(caf::actor_system& sys, evaluator_context context) {
  auto ctx = std::make_shared<const evaluator_context>(std::move(context));
  auto cache_hits = std::make_shared<std::atomic<uint64_t>>(0);
  return sys.spawn([ctx, cache_hits](caf::event_based_actor* self) -> caf::behavior {
    caf::actor_system* sys = &self->system();
    return {
        [=](evaluate_atom, const evaluation_job& job) {
          return answer_detached<evaluation_done>(
              self, [sys, ctx, job, cache_hits] { return evaluate(*sys, *ctx, job, *cache_hits); });
        },
        [=](stats_atom) -> caf::result<pool_stats> {
          auto promise = self->make_response_promise<pool_stats>();
          self->request(ctx->pool, caf::infinite, stats_atom_v)
              .then(
                  [=](pool_stats s) mutable {
                    s.cache_hits = cache_hits->load();
                    promise.deliver(std::move(s));
                  },
                  [=](caf::error& e) mutable { promise.deliver(std::move(e)); });
          return promise;
        },
    };
  });
}

}  // namespace aopt::actors
