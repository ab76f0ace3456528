#include "agent/evaluation/evaluation_service.hpp"

#include <doctest/doctest.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "agent/episode/store_journal.hpp"
#include "npu/local_device_slots.hpp"
#include "support/map_eval_cache.hpp"
#include "support/temp_dir.hpp"

using namespace aopt;

namespace {

// A device that answers ok with a fixed latency and remembers how it was called.
class counting_device final : public npu::device {
 public:
  npu::eval_result evaluate(const npu::op_package&, const std::string&, const std::string& kernel,
                            const npu::eval_options& options) override {
    std::lock_guard<std::mutex> lock(mutex_);
    calls.push_back({kernel, options.cold});
    npu::eval_result r;
    r.status = npu::eval_status::ok;
    r.latency_us = 10;
    return r;
  }
  std::string profile_id() const override { return "test:profile"; }
  std::string checker_id() const override { return checker; }

  std::string checker;  // what the device's verdicts depend on beyond the profile
  struct call {
    std::string kernel;
    bool cold = false;
  };
  std::vector<call> calls;

 private:
  std::mutex mutex_;
};

// Slots that are gone: every lease fails.
class broken_slots final : public npu::device_slots {
 public:
  result<npu::eval_result> evaluate(const npu::slot_job&) override {
    return internal_error("device pool: the pool is down");
  }
  std::string profile_id() const override { return "test:profile"; }
};

std::shared_ptr<const npu::op_package> shared_test_op() {
  npu::op_package op;
  op.spec.name = "add_test";
  op.host_source = "tiling";
  op.kernel_source = "kernel";
  return std::make_shared<const npu::op_package>(std::move(op));
}

}  // namespace

TEST_CASE("only results that depend on the candidate alone go into the evaluation cache") {
  aopt::npu::eval_result r;
  r.status = aopt::npu::eval_status::ok;
  CHECK(aopt::agent::is_cacheable(r));
  r.status = aopt::npu::eval_status::compile_error;
  CHECK(aopt::agent::is_cacheable(r));

  r.status = aopt::npu::eval_status::timeout;
  r.error_kind = "cpu_time";
  CHECK(aopt::agent::is_cacheable(r));
  // A run killed at the wall-clock limit may only have been starved by a loaded machine.
  r.error_kind = "wall_clock";
  CHECK(!aopt::agent::is_cacheable(r));

  r.status = aopt::npu::eval_status::infra_error;
  r.error_kind = "sandbox";
  CHECK(!aopt::agent::is_cacheable(r));
  r.status = aopt::npu::eval_status::ok;
  r.error_kind.clear();
  r.from_cache = true;
  CHECK(!aopt::agent::is_cacheable(r));
}

TEST_CASE("a transient failure stored by an older version is a cache miss") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());
  aopt::agent::store_journal journal(**db);
  aopt::agent::episode_state state;
  state.campaign = "c";
  state.op_name = "op";

  aopt::npu::eval_result starved;
  starved.status = aopt::npu::eval_status::timeout;
  starved.error_kind = "wall_clock";
  REQUIRE(
      journal.record(state, std::nullopt, aopt::agent::eval_cache_entry{"starved", starved}).ok());
  aopt::npu::eval_result slow = starved;
  slow.error_kind = "cpu_time";
  REQUIRE(journal.record(state, std::nullopt, aopt::agent::eval_cache_entry{"slow", slow}).ok());

  CHECK_FALSE(journal.lookup("starved").has_value());
  auto hit = journal.lookup("slow");
  REQUIRE(hit.has_value());
  CHECK(hit->error_kind == "cpu_time");
}

TEST_CASE("the evaluation service answers a stored candidate from the cache, others on a slot") {
  auto device = std::make_shared<counting_device>();
  auto cache = std::make_shared<aopt::testing::map_eval_cache>();
  agent::evaluation_service service(std::make_shared<npu::local_device_slots>(device, 1), cache,
                                    npu::eval_options{});
  const auto op = shared_test_op();

  result<agent::evaluation> first = service.evaluate({op, "tiling", "kernel-a", "c"});
  REQUIRE_MESSAGE(first.ok(), first.error().to_string());
  CHECK(first->result.ok());
  CHECK_FALSE(first->result.from_cache);
  CHECK(first->cache_key.size() == 32);
  REQUIRE(device->calls.size() == 1);
  CHECK_FALSE(device->calls[0].cold);

  // What the journal stores with the transition that used the result.
  std::optional<agent::eval_cache_entry> entry =
      agent::eval_cache_entry_for(first->cache_key, first->result);
  REQUIRE(entry.has_value());
  cache->entries[entry->key] = entry->result;

  result<agent::evaluation> again = service.evaluate({op, "tiling", "kernel-a", "c"});
  REQUIRE(again.ok());
  CHECK(again->result.from_cache);
  CHECK(again->cache_key == first->cache_key);
  CHECK(device->calls.size() == 1);
  CHECK(service.cache_hits() == 1);
  // A result from the cache is never stored again.
  CHECK_FALSE(agent::eval_cache_entry_for(again->cache_key, again->result).has_value());

  // A confirmation and a validation check go to the device although the cache holds the pair;
  // the confirmation from a cold build.
  agent::evaluation_call cold{op, "tiling", "kernel-a", "c"};
  cold.cold = true;
  REQUIRE(service.evaluate(cold).ok());
  agent::evaluation_call validation{op, "tiling", "kernel-a", "c"};
  validation.validation = true;
  result<agent::evaluation> checked = service.evaluate(validation);
  REQUIRE(checked.ok());
  REQUIRE(device->calls.size() == 3);
  CHECK(device->calls[1].cold);
  CHECK_FALSE(device->calls[2].cold);
  // The validation has a key of its own; once stored, the same check is answered from the cache.
  CHECK(checked->cache_key != first->cache_key);
  std::optional<agent::eval_cache_entry> checked_entry =
      agent::eval_cache_entry_for(checked->cache_key, checked->result);
  REQUIRE(checked_entry.has_value());
  cache->entries[checked_entry->key] = checked_entry->result;
  result<agent::evaluation> checked_again = service.evaluate(validation);
  REQUIRE(checked_again.ok());
  CHECK(checked_again->result.from_cache);
  CHECK(device->calls.size() == 3);
  CHECK(service.cache_hits() == 2);

  // Another kernel is another key.
  result<agent::evaluation> other = service.evaluate({op, "tiling", "kernel-b", "c"});
  REQUIRE(other.ok());
  CHECK_FALSE(other->result.from_cache);
  CHECK(other->cache_key != first->cache_key);
  CHECK(service.cache_hits() == 2);
}

TEST_CASE("the evaluation cache key covers the device profile and the checking options") {
  const auto op = shared_test_op();
  const npu::eval_options base;
  const std::string key = agent::eval_cache_key("sim:a", *op, "t", "k", base);
  CHECK(key == agent::eval_cache_key("sim:a", *op, "t", "k", base));
  CHECK(key != agent::eval_cache_key("sim:b", *op, "t", "k", base));
  npu::eval_options more_sets = base;
  more_sets.input_sets = base.input_sets + 1;
  CHECK(key != agent::eval_cache_key("sim:a", *op, "t", "k", more_sets));
  // A cold build changes how a result is obtained, not the result: the same key.
  npu::eval_options cold = base;
  cold.cold = true;
  CHECK(key == agent::eval_cache_key("sim:a", *op, "t", "k", cold));
  // A validation check answers only a validation check.
  CHECK(key != agent::eval_cache_key("sim:a", *op, "t", "k", base, true));
}

TEST_CASE("an evaluation no slot could give is an error and leaves no cache entry") {
  agent::evaluation_service service(std::make_shared<broken_slots>(),
                                    std::make_shared<aopt::testing::map_eval_cache>(),
                                    npu::eval_options{});
  result<agent::evaluation> r = service.evaluate({shared_test_op(), "tiling", "kernel", "c"});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message().find("the pool is down") != std::string::npos);
  // The episode records such a failure without a key: nothing to store.
  npu::eval_result failed;
  failed.status = npu::eval_status::infra_error;
  CHECK_FALSE(agent::eval_cache_entry_for("", failed).has_value());
  failed.status = npu::eval_status::ok;
  CHECK_FALSE(agent::eval_cache_entry_for("", failed).has_value());
}

namespace {

// A device whose evaluations wait until the test opens the gate; it counts how many run at once.
class gated_device final : public npu::device {
 public:
  npu::eval_result evaluate(const npu::op_package&, const std::string&, const std::string&,
                            const npu::eval_options&) override {
    std::unique_lock<std::mutex> lock(mutex_);
    max_running = std::max(max_running, ++running);
    changed_.notify_all();
    changed_.wait(lock, [&] { return open; });
    --running;
    npu::eval_result r;
    r.status = npu::eval_status::ok;
    return r;
  }
  std::string profile_id() const override { return "test:gated"; }

  void wait_running(uint32_t n) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return running == n; });
  }
  void open_gate() {
    std::lock_guard<std::mutex> lock(mutex_);
    open = true;
    changed_.notify_all();
  }

  uint32_t running = 0;
  uint32_t max_running = 0;
  bool open = false;

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
};

}  // namespace

TEST_CASE("local device slots run at most their number of evaluations at once") {
  auto device = std::make_shared<gated_device>();
  auto slots = std::make_shared<npu::local_device_slots>(device, 2);
  agent::evaluation_service service(slots, nullptr, npu::eval_options{});
  const auto op = shared_test_op();
  std::vector<std::thread> callers;
  std::vector<int> ok(4, 0);
  for (size_t i = 0; i < ok.size(); ++i) {
    callers.emplace_back([&, i] {
      ok[i] = service.evaluate({op, "tiling", "kernel-" + std::to_string(i), "c"}).ok() ? 1 : 0;
    });
  }
  // Two evaluations hold the two slots; the other two wait for a slot, not on the device.
  device->wait_running(2);
  device->open_gate();
  for (std::thread& t : callers) t.join();
  CHECK(ok == std::vector<int>{1, 1, 1, 1});
  CHECK(device->max_running == 2);
  CHECK(slots->max_in_flight() == 2);
}

TEST_CASE("a result cached under another build of the checker is not served, and re-evaluated") {
  auto old_checker = std::make_shared<counting_device>();
  old_checker->checker = "judge-1";
  auto cache = std::make_shared<aopt::testing::map_eval_cache>();
  const auto op = shared_test_op();
  agent::evaluation_service before(std::make_shared<npu::local_device_slots>(old_checker, 1), cache,
                                   npu::eval_options{});
  result<agent::evaluation> first = before.evaluate({op, "tiling", "kernel-a", "c"});
  REQUIRE(first.ok());
  cache->entries[first->cache_key] = first->result;
  CHECK(before.evaluate({op, "tiling", "kernel-a", "c"})->result.from_cache);

  // The same device and profile after the judge changed: its own key, so the device decides.
  auto new_checker = std::make_shared<counting_device>();
  new_checker->checker = "judge-2";
  agent::evaluation_service after(std::make_shared<npu::local_device_slots>(new_checker, 1), cache,
                                  npu::eval_options{});
  result<agent::evaluation> again = after.evaluate({op, "tiling", "kernel-a", "c"});
  REQUIRE(again.ok());
  CHECK_FALSE(again->result.from_cache);
  CHECK(again->cache_key != first->cache_key);
  CHECK(new_checker->calls.size() == 1);

  // A device whose verdicts depend on nothing beyond its profile keys by the profile alone.
  auto plain = std::make_shared<counting_device>();
  agent::evaluation_service profile_only(std::make_shared<npu::local_device_slots>(plain, 1),
                                         nullptr, npu::eval_options{});
  CHECK(profile_only.plan({op, "tiling", "kernel-a", "c"}).cache_key ==
        agent::eval_cache_key("test:profile", *op, "tiling", "kernel-a", npu::eval_options{}));
}
