#include "actors/device_pool.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include <fmt/format.h>

#include "actors/actor_error.hpp"
#include "actors/evaluation_worker.hpp"
#include "actors/exception_text.hpp"
#include "actors/messages.hpp"
#include "agent/evaluation/lease_table.hpp"
#include "base/challenge_response.hpp"
#include "base/utf8.hpp"

namespace aopt::actors {
namespace {

using agent::lease_table;

constexpr size_t max_open_challenges = 64;
constexpr std::chrono::seconds challenge_lifetime{60};

struct open_lease {
  caf::typed_response_promise<evaluation_reply> promise;
  pool_work work;
  std::chrono::steady_clock::time_point given;  // when last given to a slot
};

struct pool_state {
  explicit pool_state(uint32_t local_slots) : table(local_slots) {}
  lease_table table;
  std::map<agent::lease_id, open_lease> leases;
  std::map<std::string, evaluation_worker_actor> workers;  // joined workers by name
  std::map<std::string, std::shared_ptr<const npu::package_sources>> packages;  // by hash
  // Nonces handed out and not yet answered, with when (challenges are open to any peer, so
  // their number is bounded: the oldest goes first).
  std::map<std::string, std::chrono::steady_clock::time_point> challenges;
  uint64_t next_worker = 1;
  pool_stats counts;  // the counts lease_table does not keep
};

class pool_adapter {
 public:
  pool_adapter(device_pool_actor::pointer self, device_pool_config cfg)
      : self_(self), cfg_(std::move(cfg)), state_(cfg_.local_slots) {}

  caf::result<evaluation_reply> evaluate(const pool_job& job) {
    if (!job.value || !job.value->run_here || !job.value->sources)
      return to_actor_error(invalid_argument("device pool: empty evaluation job"));
    const pool_work& work = *job.value;
    const agent::lease_id lease = state().table.enqueue();
    state().packages.emplace(work.request.package, work.sources);
    auto promise = self_->make_response_promise<evaluation_reply>();
    state().leases[lease] = open_lease{promise, work, {}};
    dispatch();
    return promise;
  }

  // A fresh nonce for a worker about to join; its answer is checked by join().
  caf::result<std::string> challenge() {
    result<std::string> nonce = random_nonce();
    if (!nonce.ok()) return to_actor_error(nonce.error());
    auto& open = state().challenges;
    const auto now = std::chrono::steady_clock::now();
    for (auto it = open.begin(); it != open.end();) {
      it = now - it->second > challenge_lifetime ? open.erase(it) : std::next(it);
    }
    if (open.size() >= max_open_challenges) {
      open.erase(std::min_element(open.begin(), open.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      }));
    }
    open.emplace(*nonce, now);
    return *nonce;
  }

  caf::result<worker_welcome> join(const worker_hello& hello, const caf::actor& worker) {
    const std::string from = hello.host.substr(0, 64);
    const auto refuse = [&](const std::string& why) {
      state().counts.refused++;
      tell(fmt::format("refused a worker from {}: {}", to_valid_utf8(from), why));
      return to_actor_error(failed_precondition("refused by the coordinator: " + why));
    };
    // Each nonce answers one join: a recorded join cannot be played again.
    auto open = state().challenges.find(hello.nonce);
    if (open == state().challenges.end() ||
        std::chrono::steady_clock::now() - open->second > challenge_lifetime)
      return refuse("no open challenge for its nonce (ask with challenge_atom first)");
    state().challenges.erase(open);
    if (!cfg_.secret.empty() && !answer_matches(hello.answer, cfg_.secret, hello.nonce, hello.host))
      return refuse("wrong secret");
    if (!worker) return refuse("no worker actor");
    if (hello.slots == 0) return refuse("it offers no slots");
    if (hello.profile != cfg_.profile_id)
      return refuse(fmt::format("its device profile {} is not the coordinator's {}",
                                to_valid_utf8(hello.profile.substr(0, 64)), cfg_.profile_id));
    if (hello.checker != cfg_.checker_id)
      return refuse(
          fmt::format("its checker {} is not the coordinator's {} (another build of "
                      "the simulator, or other constants under the profile's name)",
                      to_valid_utf8(hello.checker.substr(0, 64)), cfg_.checker_id));
    const std::string name = fmt::format("w{}@{}", state().next_worker++, to_valid_utf8(from));
    // Heartbeats are checked while there are workers: a pool without any keeps no timer.
    if (state().workers.empty()) self_->send(self_, tick_atom_v);
    state().table.add_owner(name, hello.slots, std::chrono::steady_clock::now());
    const auto handle = caf::actor_cast<evaluation_worker_actor>(worker);
    state().workers[name] = handle;
    self_->monitor(handle);
    tell(fmt::format("worker {} joined with {} slot(s)", name, hello.slots));
    dispatch();
    return worker_welcome{name, cfg_.heartbeat_s};
  }

  void heartbeat(const std::string& worker) {
    if (sent_by(worker)) state().table.heartbeat(worker, std::chrono::steady_clock::now());
  }

  caf::result<npu::package_sources> package(const std::string& hash) {
    bool joined = false;
    for (const auto& [name, handle] : state().workers) joined = joined || sent_by(name);
    if (!joined) return to_actor_error(failed_precondition("not a joined worker"));
    auto it = state().packages.find(hash);
    if (it == state().packages.end()) return to_actor_error(not_found("no package " + hash));
    state().counts.packages_sent++;
    return *it->second;
  }

  void lost(const caf::actor_addr& source, const std::string& why) {
    for (const auto& [name, handle] : state().workers) {
      if (caf::actor_cast<caf::actor_addr>(handle) == source) return drop(name, why);
    }
  }

  // Drops the workers whose heartbeat is late; schedules the next check while any is left.
  void check_heartbeats() {
    const auto timeout = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(cfg_.heartbeat_timeout_s));
    for (const std::string& name :
         state().table.silent_owners(std::chrono::steady_clock::now(), timeout)) {
      drop(name, fmt::format("no heartbeat for {} s", cfg_.heartbeat_timeout_s));
    }
    if (state().workers.empty()) return;
    self_->delayed_send(self_,
                        std::chrono::milliseconds(static_cast<int64_t>(1000 * cfg_.heartbeat_s)),
                        tick_atom_v);
  }

  pool_stats stats() {
    pool_stats s = state().counts;
    const agent::lease_stats t = state().table.stats();
    s.slots = t.slots;
    s.in_flight = t.in_flight;
    s.queued = t.queued;
    s.workers = t.workers;
    s.requeued = t.requeued;
    s.duplicates = t.duplicates;
    for (const auto& o : t.owners) s.owners.push_back({o.owner, o.slots, o.busy, o.evaluated});
    return s;
  }

 private:
  pool_state& state() { return state_; }

  void tell(const std::string& line) {
    if (cfg_.on_worker_event) cfg_.on_worker_event(line);
  }

  bool sent_by(const std::string& worker) {
    auto it = state().workers.find(worker);
    return it != state().workers.end() &&
           caf::actor_cast<caf::actor_addr>(it->second) ==
               caf::actor_cast<caf::actor_addr>(self_->current_sender());
  }

  void drop(const std::string& name, const std::string& why) {
    auto it = state().workers.find(name);
    if (it == state().workers.end()) return;
    self_->demonitor(caf::actor_cast<caf::actor_addr>(it->second));
    // A worker dropped for silence may still be alive: ending its actor ends its process,
    // instead of leaving it connected without work.
    self_->send_exit(it->second, caf::exit_reason::user_shutdown);
    state().workers.erase(it);
    const size_t requeued = state().table.remove_owner(name).size();
    tell(fmt::format("worker {} dropped ({}); {} evaluation(s) queued again", name, why, requeued));
    dispatch();
  }

  // Gives queued leases to free slots.
  void dispatch() {
    while (std::optional<agent::lease_assignment> a = state().table.next_assignment()) {
      open_lease& l = state().leases.at(a->lease);
      l.given = std::chrono::steady_clock::now();
      state().counts.max_in_flight =
          std::max(state().counts.max_in_flight, state().table.stats().in_flight);
      const agent::lease_id lease = a->lease;
      const std::string owner = a->owner;
      const auto on_reply = [this, lease, owner](evaluation_reply& r) {
        finish(lease, owner, std::move(r.result));
      };
      if (owner == lease_table::local_owner) {
        // Its own detached actor, answering the pool's request: a local result is a reply too.
        auto runner = self_->spawn<caf::detached>([](caf::event_based_actor* r) -> caf::behavior {
          return {[r](run_atom, const pool_job& job) -> caf::result<evaluation_reply> {
            r->quit();
            try {
              return evaluation_reply{0, job.value->run_here()};
            } catch (...) {
              return to_actor_error(internal_error(exception_text(std::current_exception())));
            }
          }};
        });
        self_->request(runner, caf::infinite, run_atom_v, make_local(l.work))
            .then(on_reply, [this, lease](caf::error& e) { fail(lease, std::move(e)); });
        continue;
      }
      evaluation_request request = l.work.request;
      request.lease = lease;
      self_->request(state().workers.at(owner), caf::infinite, evaluate_atom_v, request)
          .then(on_reply, [this, owner](caf::error& e) {
            drop(owner, "it answered with an error: " + to_status(e).to_string());
          });
    }
  }

  void finish(agent::lease_id lease, const std::string& owner, npu::eval_result result) {
    if (state().table.complete(lease, owner)) {
      auto it = state().leases.find(lease);
      open_lease& l = it->second;
      pool_stats& c = state().counts;
      if (l.work.request.validation) {
        c.validations++;
      } else if (l.work.request.options.cold) {
        c.confirmations++;
      } else {
        c.evaluated++;
      }
      c.busy_seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - l.given).count();
      l.promise.deliver(evaluation_reply{lease, std::move(result)});
      state().leases.erase(it);
    }
    dispatch();
  }

  // A local evaluation that threw: its requester gets the error.
  void fail(agent::lease_id lease, caf::error e) {
    if (state().table.complete(lease, lease_table::local_owner)) {
      auto it = state().leases.find(lease);
      it->second.promise.deliver(std::move(e));
      state().leases.erase(it);
    }
    dispatch();
  }

  device_pool_actor::pointer self_;
  device_pool_config cfg_;
  pool_state state_;
};

device_pool_actor::behavior_type device_pool(device_pool_actor::pointer self,
                                             device_pool_config cfg) {
  auto pool = std::make_shared<pool_adapter>(self, std::move(cfg));
  self->set_down_handler([pool](caf::down_msg& m) {
    pool->lost(m.source, "connection lost: " + caf::to_string(m.reason));
  });
  return {
      [pool](evaluate_atom, const pool_job& job) { return pool->evaluate(job); },
      [pool](challenge_atom) { return pool->challenge(); },
      [pool](join_atom, const worker_hello& hello, const caf::actor& worker) {
        return pool->join(hello, worker);
      },
      [pool](heartbeat_atom, const std::string& worker) { pool->heartbeat(worker); },
      [pool](package_atom, const std::string& hash) { return pool->package(hash); },
      [pool](stats_atom) -> caf::result<pool_stats> { return pool->stats(); },
      [pool](tick_atom) { pool->check_heartbeats(); },
  };
}

}  // namespace

device_pool_actor spawn_device_pool(caf::actor_system& sys, device_pool_config config) {
  return sys.spawn(device_pool, std::move(config));
}

}  // namespace aopt::actors
