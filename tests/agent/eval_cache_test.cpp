#include <doctest/doctest.h>

#include "agent/episode/store_journal.hpp"
#include "agent/evaluation/eval_cache.hpp"
#include "support/temp_dir.hpp"

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
