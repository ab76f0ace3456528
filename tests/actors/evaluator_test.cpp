// The evaluator actor (actors/evaluator.hpp) over a real device pool: a cache hit never reaches
// the pool, a miss is the device's result under the service's cache key, and a pool that gives
// no result answers with an error whose status code survived the actor boundary.
#include "actors/evaluator.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>

#include "actors/actor_error.hpp"
#include "actors/actor_system_setup.hpp"
#include "actors/device_pool.hpp"
#include "actors/shut_down.hpp"

using namespace aopt;

namespace {

// A device that counts its evaluations and answers each with a fixed latency.
class fixed_latency_device final : public npu::device {
 public:
  npu::eval_result evaluate(const npu::op_package&, const std::string&, const std::string&,
                            const npu::eval_options&) override {
    ++calls;
    npu::eval_result r;
    r.status = npu::eval_status::ok;
    r.latency_us = 12.5;
    return r;
  }
  std::string profile_id() const override { return "test:counting"; }

  std::atomic<int> calls{0};
};

class map_eval_cache final : public agent::eval_cache {
 public:
  std::optional<npu::eval_result> lookup(const std::string& key) override {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  void put(const std::string& key, npu::eval_result r) {
    std::lock_guard<std::mutex> lock(mutex_);
    entries_[key] = std::move(r);
  }

 private:
  std::mutex mutex_;
  std::map<std::string, npu::eval_result> entries_;
};

struct evaluator_fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys{(actors::configure_actor_system(cfg), cfg)};
  std::shared_ptr<fixed_latency_device> device = std::make_shared<fixed_latency_device>();
  std::shared_ptr<map_eval_cache> cache = std::make_shared<map_eval_cache>();
  actors::device_pool_actor pool = actors::spawn_device_pool(
      sys, {1, "", device->profile_id(), device->checker_id(), 1, 10, nullptr});
  actors::evaluator_actor evaluator =
      actors::spawn_evaluator(sys, {device, pool, cache, npu::eval_options{}});
  actors::evaluation_job job{"c-test", "/nonexistent", "tiling text", "kernel text",
                             std::make_shared<const npu::op_package>()};

  result<actors::evaluation_done> ask() {
    caf::scoped_actor self{sys};
    std::optional<result<actors::evaluation_done>> out;
    self->request(evaluator, caf::infinite, actors::evaluate_atom_v, job)
        .receive([&](actors::evaluation_done& d) { out = std::move(d); },
                 [&](caf::error& e) { out = actors::to_status(e); });
    return std::move(*out);
  }
  ~evaluator_fixture() { actors::shut_down(evaluator, pool); }
};

}  // namespace

TEST_CASE("the evaluator answers a miss from the pool's device and a hit from the cache alone") {
  evaluator_fixture f;
  const std::string key =
      agent::eval_cache_key(f.device->profile_id(), *f.job.op, f.job.tiling, f.job.kernel, {});

  result<actors::evaluation_done> miss = f.ask();
  REQUIRE(miss.ok());
  CHECK(f.device->calls == 1);
  CHECK(miss->cache_key == key);
  CHECK(miss->result.latency_us == 12.5);
  CHECK_FALSE(miss->result.from_cache);

  npu::eval_result stored = miss->result;
  stored.latency_us = 7.0;
  f.cache->put(key, stored);
  result<actors::evaluation_done> hit = f.ask();
  REQUIRE(hit.ok());
  CHECK(f.device->calls == 1);
  CHECK(hit->result.from_cache);
  CHECK(hit->result.latency_us == 7.0);

  // A confirmation is never answered from the cache.
  f.job.cold = true;
  result<actors::evaluation_done> cold = f.ask();
  REQUIRE(cold.ok());
  CHECK(f.device->calls == 2);
  CHECK_FALSE(cold->result.from_cache);
}

TEST_CASE("a pool that gives no result is an error with its status code, not an internal one") {
  evaluator_fixture f;
  caf::anon_send_exit(f.pool, caf::exit_reason::kill);
  // The pool is gone once a request to it fails; the evaluator's own request fails the same way.
  {
    caf::scoped_actor self{f.sys};
    self->wait_for(f.pool);
  }
  result<actors::evaluation_done> out = f.ask();
  REQUIRE_FALSE(out.ok());
  CHECK(out.error().code() == status_code::unavailable);
  CHECK(out.error().message().find("device pool") != std::string::npos);
  CHECK(f.device->calls == 0);
}
