// The device pool's bookkeeping (issue 19): which evaluation is leased to which slot owner (this
// process's own slots, or a remote worker's), which wait for a slot, and what each owner did.
//
// Every evaluation gets a lease id when it is queued. A lease is given to one free slot at a
// time; an owner that disappears (its connection went down, or its heartbeat is late) is
// removed and its leases are queued again, first in line. The first result reported for a lease
// completes it; a later one (from the owner it was taken from, or from the owner it was given to
// next) is recognised by its id, frees that owner's slot and is counted as a duplicate, never
// as a second evaluation.
//
// Thread-safety: none; one owner (the device pool actor) uses it.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aopt::agent {

using lease_id = uint64_t;
using lease_clock = std::chrono::steady_clock;

struct lease_owner_stats {
  std::string owner;
  uint32_t slots = 0;
  uint32_t busy = 0;
  uint64_t evaluated = 0;  // leases this owner completed (first results only)
};

struct lease_stats {
  uint32_t workers = 0;     // remote owners now registered
  uint32_t slots = 0;       // slots of every owner, local ones included
  uint32_t in_flight = 0;   // leases given to a slot and not yet completed
  uint32_t queued = 0;      // leases waiting for a slot
  uint64_t completed = 0;   // leases completed
  uint64_t requeued = 0;    // times a lease was queued again because its owner disappeared
  uint64_t duplicates = 0;  // results for leases already completed (not counted again)
  std::vector<lease_owner_stats> owners;  // by owner name
};

struct lease_assignment {
  lease_id lease = 0;
  std::string owner;
};

class lease_table {
 public:
  // The owner name of this process's own slots.
  static constexpr const char* local_owner = "local";

  explicit lease_table(uint32_t local_slots);

  // Registers a remote owner with `slots` slots; false when the name is taken.
  bool add_owner(const std::string& owner, uint32_t slots, lease_clock::time_point now);
  // Removes an owner; its leases not yet completed are queued again, before any other. Returns
  // them (empty when the owner is unknown).
  std::vector<lease_id> remove_owner(const std::string& owner);
  void heartbeat(const std::string& owner, lease_clock::time_point now);
  // Remote owners whose last heartbeat is older than `timeout` at `now` (not removed here).
  std::vector<std::string> silent_owners(lease_clock::time_point now,
                                         lease_clock::duration timeout) const;

  // Queues a new evaluation; returns its lease id.
  lease_id enqueue();
  // Gives the first queued lease to a free slot (the owner with the most free slots; the local
  // one on a tie); nullopt when nothing is queued or no slot is free.
  std::optional<lease_assignment> next_assignment();

  // A result for `lease` from `owner`. True when it completes the lease (count it); false for a
  // duplicate or an unknown lease. Frees the owner's slot if the lease was given to it.
  bool complete(lease_id lease, const std::string& owner);

  lease_stats stats() const;

 private:
  struct owner_state {
    uint32_t slots = 0;
    uint32_t busy = 0;
    uint64_t evaluated = 0;
    lease_clock::time_point last_heartbeat;
    std::set<lease_id> held;
  };
  struct lease_state {
    std::set<std::string> holders;  // owners it is given to now
    bool queued = false;
  };

  void release(owner_state& owner, lease_id lease);

  std::map<std::string, owner_state> owners_;
  std::map<lease_id, lease_state> open_;  // leases not yet completed
  std::deque<lease_id> queue_;
  lease_id next_id_ = 1;
  uint64_t completed_ = 0;
  uint64_t requeued_ = 0;
  uint64_t duplicates_ = 0;
  // Evaluations completed by owners since removed, so that per-owner counts still add up.
  std::map<std::string, uint64_t> departed_evaluated_;
};

}  // namespace aopt::agent
