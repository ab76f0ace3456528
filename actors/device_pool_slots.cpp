#include "actors/device_pool_slots.hpp"

#include <utility>

#include "actors/actor_error.hpp"
#include "actors/messages.hpp"

namespace aopt::actors {

device_pool_slots::device_pool_slots(caf::actor_system& sys, device_pool_actor pool,
                                     std::shared_ptr<npu::device> device)
    : sys_(sys), pool_(std::move(pool)), device_(std::move(device)) {}

pool_work make_pool_work(std::shared_ptr<npu::device> device, const npu::slot_job& job) {
  auto sources = std::make_shared<const npu::package_sources>(npu::sources_of(*job.op));
  pool_work work;
  work.request.campaign = job.campaign;
  work.request.package = npu::package_hash(*sources);
  work.request.tiling = job.tiling;
  work.request.kernel = job.kernel;
  work.request.options = job.options;
  work.request.validation = job.validation;
  work.sources = std::move(sources);
  work.run_here = [device = std::move(device), job] {
    return device->evaluate(*job.op, job.tiling, job.kernel, job.options);
  };
  return work;
}

status pool_failure(const caf::error& e) {
  const status failure = to_status(e);
  return status{failure.code(), "device pool: " + failure.message()};
}

result<npu::eval_result> device_pool_slots::evaluate(const npu::slot_job& job) {
  std::optional<result<npu::eval_result>> out;
  caf::scoped_actor self{sys_};
  self->request(pool_, caf::infinite, evaluate_atom_v, make_local(make_pool_work(device_, job)))
      .receive([&](evaluation_reply& r) { out = std::move(r.result); },
               [&](caf::error& e) { out = pool_failure(e); });
  return std::move(*out);
}

}  // namespace aopt::actors
