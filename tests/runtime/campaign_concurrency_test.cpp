// A real campaign (actor system, simulator device, RocksDB) over three operators: episodes of
// different operators overlap in time, and the device pool never runs more evaluations at once
// than it has slots.
#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/aopt_config.hpp"
#include "runtime/campaign_runner.hpp"
#include "storage/store.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using aopt::agent::campaign_event;

class recording_sink final : public aopt::agent::event_sink {
 public:
  void publish(const campaign_event& event) override {
    std::lock_guard<std::mutex> lock(mutex_);
    events_.push_back(event);
  }
  std::vector<campaign_event> events() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return events_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<campaign_event> events_;
};

std::vector<fs::path> corpus_ops(std::initializer_list<const char*> names) {
  std::vector<fs::path> ops;
  for (const char* name : names) ops.push_back(fs::path(AOPT_SOURCE_DIR) / "corpus/level1" / name);
  return ops;
}

}  // namespace

TEST_CASE("episodes of different operators overlap and the device pool stays within its slots") {
  aopt::testing::temp_dir dir;
  auto cfg = aopt::config::load_config(
      "", {"campaign.budget=3", "campaign.rounds=1", "campaign.stage1_steps=2",
           "campaign.stage2_steps=1", "campaign.jobs=3", "device.slots=2"});
  REQUIRE_MESSAGE(cfg.ok(), cfg.error().to_string());
  auto db = aopt::storage::store::open(dir.path() / "db");
  REQUIRE_MESSAGE(db.ok(), db.error().to_string());

  aopt::runtime::campaign_request request;
  request.operators = corpus_ops({"add_custom", "mul_custom", "relu_custom"});
  request.config = *cfg;
  auto sink = std::make_shared<recording_sink>();
  auto stop = std::make_shared<std::atomic<bool>>(false);
  auto outcome = aopt::runtime::run_campaign(request, **db, sink, stop);
  REQUIRE_MESSAGE(outcome.ok(), outcome.error().to_string());
  CHECK(outcome->errors.empty());
  CHECK_FALSE(outcome->interrupted);

  std::map<std::string, size_t> started_at, finished_at;
  const std::vector<campaign_event> events = sink->events();
  for (size_t i = 0; i < events.size(); ++i) {
    if (events[i].type == campaign_event::kind::episode_started) started_at[events[i].op] = i;
    if (events[i].type == campaign_event::kind::episode_finished) finished_at[events[i].op] = i;
  }
  REQUIRE(started_at.size() == 3);
  REQUIRE(finished_at.size() == 3);
  size_t first_finish = events.size();
  size_t last_start = 0;
  for (const auto& [op, index] : finished_at) first_finish = std::min(first_finish, index);
  for (const auto& [op, index] : started_at) last_start = std::max(last_start, index);
  CHECK_MESSAGE(last_start < first_finish, "every episode starts before the first one finishes");

  CHECK(outcome->pool.slots == 2);
  CHECK(outcome->pool.max_in_flight <= 2);
  CHECK(outcome->pool.max_in_flight >= 1);
  CHECK(outcome->pool.evaluated + outcome->pool.cache_hits >= 3);
  for (const auto& episode : outcome->episodes) CHECK(episode.candidates <= 3);
}
