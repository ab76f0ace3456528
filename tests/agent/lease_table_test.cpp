#include <doctest/doctest.h>

#include "agent/evaluation/lease_table.hpp"

using aopt::agent::lease_clock;
using aopt::agent::lease_table;

namespace {

const lease_clock::time_point t0{};

uint64_t evaluated_by(const lease_table& t, const std::string& owner) {
  for (const auto& o : t.stats().owners) {
    if (o.owner == owner) return o.evaluated;
  }
  return 0;
}

}  // namespace

TEST_CASE("leases go to free slots, local first on a tie, and wait when every slot is busy") {
  lease_table t(1);
  REQUIRE(t.add_owner("w1", 1, t0));
  const auto a = t.enqueue();
  const auto b = t.enqueue();
  const auto c = t.enqueue();
  auto first = t.next_assignment();
  REQUIRE(first);
  CHECK(first->lease == a);
  CHECK(first->owner == lease_table::local_owner);
  auto second = t.next_assignment();
  REQUIRE(second);
  CHECK(second->lease == b);
  CHECK(second->owner == "w1");
  CHECK_FALSE(t.next_assignment());
  CHECK(t.stats().queued == 1);
  CHECK(t.stats().in_flight == 2);

  CHECK(t.complete(b, "w1"));
  auto third = t.next_assignment();
  REQUIRE(third);
  CHECK(third->lease == c);
  CHECK(third->owner == "w1");
  CHECK(evaluated_by(t, "w1") == 1);
}

TEST_CASE("a pure coordinator (no local slots) assigns nothing until a worker joins") {
  lease_table t(0);
  const auto a = t.enqueue();
  CHECK_FALSE(t.next_assignment());
  REQUIRE(t.add_owner("w1", 2, t0));
  auto given = t.next_assignment();
  REQUIRE(given);
  CHECK(given->lease == a);
  CHECK(given->owner == "w1");
  CHECK(t.stats().workers == 1);
  CHECK(t.stats().slots == 2);
}

TEST_CASE("a departed owner's leases are queued again first, and a late result counts once") {
  lease_table t(0);
  REQUIRE(t.add_owner("w1", 1, t0));
  const auto a = t.enqueue();
  const auto b = t.enqueue();
  REQUIRE(t.next_assignment()->owner == "w1");  // a
  auto requeued = t.remove_owner("w1");
  REQUIRE(requeued.size() == 1);
  CHECK(requeued[0] == a);
  CHECK(t.stats().requeued == 1);
  CHECK(t.stats().workers == 0);

  REQUIRE(t.add_owner("w2", 1, t0));
  auto again = t.next_assignment();
  REQUIRE(again);
  CHECK(again->lease == a);  // before b, which was queued later
  CHECK(again->owner == "w2");

  // w1 was only silent: its late result arrives first and completes the lease ...
  CHECK(t.complete(a, "w1"));
  // ... and w2's result for the same lease is a duplicate that frees w2's slot.
  CHECK_FALSE(t.complete(a, "w2"));
  const auto s = t.stats();
  CHECK(s.completed == 1);
  CHECK(s.duplicates == 1);
  CHECK(s.in_flight == 0);
  CHECK(evaluated_by(t, "w1") == 1);  // a departed owner's count stays in the stats
  CHECK(evaluated_by(t, "w2") == 0);
  auto next = t.next_assignment();
  REQUIRE(next);
  CHECK(next->lease == b);
}

TEST_CASE("a late result for a lease still queued completes it and takes it out of the queue") {
  lease_table t(0);
  REQUIRE(t.add_owner("w1", 1, t0));
  const auto a = t.enqueue();
  REQUIRE(t.next_assignment());
  t.remove_owner("w1");
  CHECK(t.stats().queued == 1);
  CHECK(t.complete(a, "w1"));
  CHECK(t.stats().queued == 0);
  REQUIRE(t.add_owner("w2", 1, t0));
  CHECK_FALSE(t.next_assignment());
  CHECK_FALSE(t.complete(a, "w2"));
  CHECK_FALSE(t.complete(999, "w2"));  // never issued: neither completed nor a duplicate
  CHECK(t.stats().duplicates == 1);
}

TEST_CASE("owners whose heartbeat is late are reported; the local owner never is") {
  lease_table t(1);
  REQUIRE(t.add_owner("w1", 1, t0));
  REQUIRE(t.add_owner("w2", 1, t0));
  CHECK_FALSE(t.add_owner("w1", 4, t0));
  t.heartbeat("w2", t0 + std::chrono::seconds(8));
  auto silent = t.silent_owners(t0 + std::chrono::seconds(11), std::chrono::seconds(5));
  REQUIRE(silent.size() == 1);
  CHECK(silent[0] == "w1");
  CHECK(t.remove_owner(lease_table::local_owner).empty());
  CHECK(t.stats().slots == 3);
}
