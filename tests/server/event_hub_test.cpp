#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "server/event_hub.hpp"
#include "support/temp_dir.hpp"

namespace {

struct recording_subscriber : aopt::server::event_subscriber {
  std::vector<std::shared_ptr<const aopt::server::hub_event>> seen;
  bool closed = false;
  void deliver(std::shared_ptr<const aopt::server::hub_event> e) override { seen.push_back(e); }
  void close() override { closed = true; }
};

aopt::agent::campaign_event evaluated(const std::string& campaign, const std::string& status) {
  aopt::agent::campaign_event e;
  e.type = aopt::agent::campaign_event::kind::candidate_evaluated;
  e.campaign = campaign;
  e.op = "add_custom";
  e.status = status;
  e.accepted = status == "ok";
  return e;
}

}  // namespace

TEST_CASE("event_hub numbers events, replays the retained ones and fans out new ones") {
  aopt::server::event_hub hub(2);
  hub.publish(evaluated("c1", "ok"));
  hub.publish(evaluated("c1", "compile_error"));
  hub.publish_status("c2", "running");
  CHECK(hub.last_id() == 3);

  auto sub = std::make_shared<recording_subscriber>();
  // Only the last two are retained; since=2 leaves one of them.
  const auto backlog = hub.subscribe(sub, 2);
  REQUIRE(backlog.size() == 1);
  CHECK(backlog[0]->id == 3);
  CHECK(backlog[0]->type == "campaign_status");
  CHECK(hub.subscribe(std::make_shared<recording_subscriber>(), 0).size() == 2);

  hub.publish(evaluated("c1", "ok"));
  REQUIRE(sub->seen.size() == 1);
  const nlohmann::json j = nlohmann::json::parse(sub->seen[0]->json);
  CHECK(j.at("id") == 4);
  CHECK(j.at("type") == "candidate_evaluated");
  CHECK(hub.campaign_version("c1") == 4);
  CHECK(hub.campaign_version("c2") == 3);

  const aopt::server::hub_counters c = hub.counters();
  CHECK(c.evaluations_by_status.at("ok") == 2);
  CHECK(c.evaluations_by_status.at("compile_error") == 1);
  CHECK(c.accepted == 2);
  CHECK(c.subscribers == 1);  // the second subscriber is gone

  hub.close_all();
  CHECK(sub->closed);
  auto late = std::make_shared<recording_subscriber>();
  CHECK(hub.subscribe(late, 0).empty());
  CHECK(late->closed);
}

TEST_CASE("a hub with a log continues the ids and the history of the previous daemon") {
  aopt::testing::temp_dir dir;
  {
    auto db = aopt::storage::store::open(dir.path() / "db");
    REQUIRE(db.ok());
    auto hub = aopt::server::event_hub::with_log(**db, 3);
    REQUIRE(hub.ok());
    CHECK((*hub)->last_id() == 0);
    (*hub)->publish(evaluated("c1", "ok"));
    (*hub)->publish_status("c1", "running");
    (*hub)->publish(evaluated("c2", "ok"));
    (*hub)->publish_status("c2", "done");
    CHECK((*hub)->last_id() == 4);
  }
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE(db.ok());
  auto hub = aopt::server::event_hub::with_log(**db, 3);
  REQUIRE(hub.ok());
  CHECK((*hub)->last_id() == 4);
  // A client that saw event 2 before the restart gets 3 and 4 (history 3 keeps 2..4).
  auto sub = std::make_shared<recording_subscriber>();
  const auto backlog = (*hub)->subscribe(sub, 2);
  REQUIRE(backlog.size() == 2);
  CHECK(backlog[0]->id == 3);
  CHECK(backlog[0]->campaign == "c2");
  CHECK(backlog[0]->type == "candidate_evaluated");
  CHECK(nlohmann::json::parse(backlog[1]->json).at("status") == "done");
  CHECK((*hub)->subscribe(std::make_shared<recording_subscriber>(), 0).size() == 3);
  CHECK((*hub)->campaign_version("c2") == 4);

  (*hub)->publish(evaluated("c1", "ok"));
  REQUIRE(sub->seen.size() == 1);
  CHECK(sub->seen[0]->id == 5);
  CHECK((*hub)->counters().log_errors == 0);
}
