// Starts real `aopt serve` processes on loopback and drives a campaign over HTTP: submitted,
// followed over server-sent events, the daemon SIGKILLed mid-campaign and restarted (it resumes
// the campaign by itself), stopped with SIGTERM (it exits cleanly, the campaign resumes on the
// next start), and finished with every evaluation accounted for.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon_process.hpp"
#include "server/http_client.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using aopt::server::sse_message;

constexpr int budget = 6;

std::vector<std::string> serve_args(const fs::path& db) {
  return {"--listen", "127.0.0.1:0",
          "--db",     db.string(),
          "--set",    "server.roots=[\"" + std::string(AOPT_SOURCE_DIR) + "/corpus\"]",
          "--set",    "device.slots=1"};
}

aopt::server::server_url url_of(const aopt::testing::daemon_process& d) {
  auto url = aopt::server::parse_server_url(d.url());
  REQUIRE(url.ok());
  return *url;
}

aopt::server::client_response call(const aopt::testing::daemon_process& d,
                                   const std::string& method, const std::string& target,
                                   const std::string& body = "") {
  auto res = aopt::server::http_call(url_of(d), method, target, body, "");
  REQUIRE_MESSAGE(res.ok(), res.error().to_string());
  return *res;
}

// Follows the campaign's events after id `last_seen` until `until` returns true, as a client
// that reconnects with the last id it saw; returns the "candidates" value of every
// candidate_evaluated event seen, in order, and leaves in `last_seen` the last id seen. Ids
// must keep increasing, also across daemon restarts.
std::vector<int> follow(
    const aopt::testing::daemon_process& d, uint64_t& last_seen,
    const std::function<bool(const std::string& type, const nlohmann::json& event)>& until) {
  std::vector<int> evaluated;
  aopt::status s = aopt::server::read_event_stream(
      url_of(d), "/api/v1/events?since=" + std::to_string(last_seen) + "&campaign=it", "",
      [&](const sse_message& m) {
        const nlohmann::json j = nlohmann::json::parse(m.data);
        CHECK(j.at("id").get<uint64_t>() == m.id);
        CHECK(m.id > last_seen);
        last_seen = m.id;
        if (m.type == "candidate_evaluated") evaluated.push_back(j.at("candidates").get<int>());
        return !until(m.type, j);
      });
  REQUIRE_MESSAGE(s.ok(), s.to_string());
  return evaluated;
}

}  // namespace

TEST_CASE("a daemon killed mid-campaign resumes it on restart and loses no evaluation") {
  aopt::testing::temp_dir dir;
  const fs::path db = dir.path() / "db";
  std::vector<int> before_kill;
  uint64_t last_seen = 0;
  {
    aopt::testing::daemon_process first(serve_args(db));
    REQUIRE(first.wait_ready());
    const nlohmann::json body = {
        {"operators", {std::string(AOPT_SOURCE_DIR) + "/corpus/level1/add_custom"}},
        {"campaign", "it"},
        {"budget", budget},
        {"rounds", 2},
        {"seed", 5}};
    aopt::server::client_response created = call(first, "POST", "/api/v1/campaigns", body.dump());
    REQUIRE_MESSAGE(created.status == 201, created.body);
    CHECK(created.json().at("id") == "it");

    // A bad request while the campaign runs is refused and changes nothing.
    CHECK(call(first, "POST", "/api/v1/campaigns", "{\"operators\": [").status == 400);
    CHECK(call(first, "POST", "/api/v1/campaigns", body.dump()).status == 409);

    before_kill = follow(first, last_seen, [](const std::string& type, const nlohmann::json&) {
      return type == "candidate_evaluated";
    });
    REQUIRE(before_kill.size() == 1);
    first.signal(SIGKILL);
    const int st = first.wait();
    CHECK(WIFSIGNALED(st));
  }

  std::vector<int> second_run;
  {
    aopt::testing::daemon_process second(serve_args(db));
    REQUIRE(second.wait_ready());
    const auto& lines = second.startup_lines();
    CHECK(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
      return l.find("resumed campaign it") != std::string::npos;
    }));
    second_run = follow(second, last_seen, [](const std::string& type, const nlohmann::json&) {
      return type == "candidate_evaluated";
    });
    REQUIRE(!second_run.empty());
    // Nothing evaluated before the kill is evaluated again.
    CHECK(second_run.front() > before_kill.back());

    // SIGTERM: the daemon stops after the evaluations in flight, records the campaign as
    // interrupted, and exits 0.
    second.signal(SIGTERM);
    const int st = second.wait();
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
  }

  aopt::testing::daemon_process third(serve_args(db));
  REQUIRE(third.wait_ready());
  std::string final_status = call(third, "GET", "/api/v1/campaigns/it").json().at("status");
  std::vector<int> third_run;
  // Unless the SIGTERM came after the last evaluation, the campaign resumed and runs to the end.
  // The stream first replays what the second daemon published after `last_seen` (its
  // "interrupted" among them), so only an end status counts.
  if (final_status != "done") {
    third_run = follow(third, last_seen, [&](const std::string& type, const nlohmann::json& j) {
      if (type == "campaign_status" && (j.at("status") == "done" || j.at("status") == "failed" ||
                                        j.at("status") == "cancelled")) {
        final_status = j.at("status");
        return true;
      }
      return false;
    });
  }
  CHECK(final_status == "done");
  if (!third_run.empty()) CHECK(third_run.front() > second_run.back());

  const nlohmann::json campaign = call(third, "GET", "/api/v1/campaigns/it").json();
  CHECK(campaign.at("status") == "done");
  CHECK(campaign.at("evaluations") == budget);
  CHECK(campaign.at("progress").get<double>() == doctest::Approx(1.0));
  const nlohmann::json op = call(third, "GET", "/api/v1/campaigns/it/operators/add_custom").json();
  // Every candidate record is there exactly once: the baseline, then one per evaluation, with
  // contiguous sequence numbers across the three daemon runs.
  const nlohmann::json& candidates = op.at("candidates");
  REQUIRE(candidates.size() == budget + 1);
  for (size_t i = 0; i < candidates.size(); ++i) CHECK(candidates[i].at("seq") == i);
  CHECK(op.at("trajectory").size() >= 1);
  CHECK(!op.at("best_kernel").get<std::string>().empty());

  third.signal(SIGTERM);
  CHECK(WIFEXITED(third.wait()));
}
