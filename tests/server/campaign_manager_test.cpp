// campaign_manager against a real store and real campaign runs: the transitions a client drives
// while a campaign is between states.
#include <doctest/doctest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

#include <nlohmann/json.hpp>

#include "config/aopt_config.hpp"
#include "server/campaign_manager.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

// The campaign_status events the hub publishes, in order.
class status_log final : public aopt::server::event_subscriber {
 public:
  void deliver(std::shared_ptr<const aopt::server::hub_event> event) override {
    if (event->type != "campaign_status") return;
    std::lock_guard<std::mutex> lock(mutex_);
    const nlohmann::json j = nlohmann::json::parse(event->json);
    statuses_.push_back(j.at("status").get<std::string>() + ":" +
                        j.at("message").get<std::string>());
    changed_.notify_all();
  }
  void close() override {}

  // Waits until a status event starting with `prefix` arrives after the first `after` events;
  // returns the index of that event, or -1 after 120 s.
  int wait_for(const std::string& prefix, size_t after) {
    std::unique_lock<std::mutex> lock(mutex_);
    int found = -1;
    changed_.wait_for(lock, std::chrono::seconds(120), [&] {
      for (size_t i = after; i < statuses_.size(); ++i) {
        if (statuses_[i].rfind(prefix, 0) == 0) {
          found = static_cast<int>(i);
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::vector<std::string> statuses() {
    std::lock_guard<std::mutex> lock(mutex_);
    return statuses_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::string> statuses_;
};

}  // namespace

TEST_CASE("resuming a campaign that is still stopping for a pause runs it again") {
  aopt::testing::temp_dir dir;
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE(db.ok());
  auto hub = std::make_shared<aopt::server::event_hub>();
  auto log = std::make_shared<status_log>();
  hub->subscribe(log, 0);
  aopt::server::campaign_manager campaigns(**db, hub, 1);
  auto cfg = aopt::config::load_config("", {"campaign.budget=40", "campaign.rounds=2"});
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  const fs::path op = fs::path(AOPT_SOURCE_DIR) / "corpus" / "level1" / "add_custom";
  auto id = campaigns.create("pr", {op}, *cfg);
  REQUIRE_MESSAGE(id.ok(), id.error().to_string());

  // The pause only asks the run to stop; the resume arrives before its evaluations in flight
  // are persisted.
  REQUIRE(campaigns.pause("pr").ok());
  REQUIRE(campaigns.resume("pr").ok());
  CHECK(campaigns.is_running("pr"));

  // The first run ends and the campaign runs again, without ever being recorded as paused.
  const int first_running = log->wait_for("running:", 0);
  REQUIRE(first_running >= 0);
  const int second_running = log->wait_for("running:", first_running + 1);
  INFO("statuses: " << nlohmann::json(log->statuses()).dump());
  REQUIRE(second_running > first_running);
  CHECK(campaigns.is_running("pr"));
  for (const std::string& s : log->statuses()) CHECK(s.rfind("paused:", 0) != 0);
  CHECK((*db)->get_campaign("pr")->value("status", "") != "paused");

  // A campaign being cancelled cannot be resumed or paused; it ends cancelled.
  REQUIRE(campaigns.cancel("pr").ok());
  CHECK(campaigns.resume("pr").code() == aopt::status_code::failed_precondition);
  CHECK(campaigns.pause("pr").code() == aopt::status_code::failed_precondition);
  REQUIRE(campaigns.wait_idle(300));
  CHECK((*db)->get_campaign("pr")->value("status", "") == "cancelled");
}
