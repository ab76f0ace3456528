#include "actors/evaluation_worker.hpp"

#include <chrono>

#include <fmt/format.h>

#include "actors/actor_error.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {
namespace {

using package_ptr = std::shared_ptr<const npu::op_package>;

// Evaluates `request` on `pkg` on this host's device, answering `promise` from its own thread.
void evaluate_detached(evaluation_worker_actor::pointer self,
                       caf::typed_response_promise<evaluation_reply> promise,
                       const evaluation_worker_context& ctx, package_ptr pkg,
                       evaluation_request request) {
  if (ctx.on_lease) ctx.on_lease(fmt::format("lease {}: {}", request.lease, pkg->spec.name));
  self->spawn<caf::detached>([promise, device = ctx.device, pkg, request]() mutable {
    promise.deliver(evaluation_reply{
        request.lease, device->evaluate(*pkg, request.tiling, request.kernel, request.options)});
  });
}

}  // namespace

evaluation_worker_actor spawn_evaluation_worker(caf::actor_system& sys,
                                                evaluation_worker_context context) {
  auto ctx = std::make_shared<const evaluation_worker_context>(std::move(context));
  return sys.spawn(
      [ctx](evaluation_worker_actor::pointer self) -> evaluation_worker_actor::behavior_type {
        auto name = std::make_shared<std::string>();
        auto period = std::make_shared<std::chrono::milliseconds>(1000);
        self->monitor(ctx->coordinator);
        self->set_down_handler([self](caf::down_msg& m) { self->quit(m.reason); });
        return {
            [=](evaluate_atom, const evaluation_request& request) -> caf::result<evaluation_reply> {
              auto promise = self->make_response_promise<evaluation_reply>();
              if (package_ptr cached = ctx->packages->find(request.package)) {
                evaluate_detached(self, promise, *ctx, std::move(cached), request);
                return promise;
              }
              self->request(ctx->coordinator, std::chrono::seconds(60), package_atom_v,
                            request.package)
                  .then(
                      [=](const npu::package_sources& sources) mutable {
                        if (npu::package_hash(sources) != request.package) {
                          promise.deliver(to_actor_error(invalid_argument(
                              "the package sent for " + request.package + " has another hash")));
                          return;
                        }
                        result<npu::op_package> pkg =
                            npu::package_from_sources(sources, "remote:" + request.package);
                        if (!pkg.ok()) {
                          promise.deliver(to_actor_error(pkg.error()));
                          return;
                        }
                        auto shared = std::make_shared<const npu::op_package>(std::move(*pkg));
                        ctx->packages->insert(request.package, shared);
                        evaluate_detached(self, promise, *ctx, shared, request);
                      },
                      [=](caf::error& e) mutable { promise.deliver(std::move(e)); });
              return promise;
            },
            [=](const worker_welcome& welcome) {
              *name = welcome.worker;
              *period = std::chrono::milliseconds(static_cast<int64_t>(1000 * welcome.heartbeat_s));
              self->send(self, tick_atom_v);
            },
            [=](tick_atom) {
              self->send(ctx->coordinator, heartbeat_atom_v, *name);
              self->delayed_send(self, *period, tick_atom_v);
            },
        };
      });
}

}  // namespace aopt::actors
