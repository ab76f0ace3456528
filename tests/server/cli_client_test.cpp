// The `aopt` client commands against a real daemon: submit, status --server, pause, resume,
// cancel, each checked through the daemon's own answers and its event stream.
#include <doctest/doctest.h>

#include <signal.h>

#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "daemon_process.hpp"
#include "server/http_client.hpp"
#include "support/temp_dir.hpp"

namespace {

aopt::subprocess_result aopt_cli(const std::vector<std::string>& args) {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.limits.wall_seconds = 120;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return *r;
}

// Waits on the event stream for the campaign's next status among `wanted`.
std::string next_status(const aopt::testing::daemon_process& d, uint64_t since,
                        const std::vector<std::string>& wanted) {
  auto url = aopt::server::parse_server_url(d.url());
  REQUIRE(url.ok());
  std::string seen;
  aopt::status s = aopt::server::read_event_stream(
      *url, "/api/v1/events?campaign=cli&since=" + std::to_string(since), "",
      [&](const aopt::server::sse_message& m) {
        if (m.type != "campaign_status") return true;
        const std::string st = nlohmann::json::parse(m.data).at("status");
        if (std::find(wanted.begin(), wanted.end(), st) == wanted.end()) return true;
        seen = st;
        return false;
      });
  REQUIRE(s.ok());
  return seen;
}

uint64_t last_event_id(const aopt::testing::daemon_process& d) {
  auto url = aopt::server::parse_server_url(d.url());
  REQUIRE(url.ok());
  auto m = aopt::server::http_call(*url, "GET", "/metrics", "", "");
  REQUIRE(m.ok());
  const std::string key = "\naopt_events_total ";
  const size_t at = m->body.find(key);
  REQUIRE(at != std::string::npos);
  return std::stoull(m->body.substr(at + key.size()));
}

}  // namespace

TEST_CASE("aopt submit, status, pause, resume and cancel drive a daemon's campaign") {
  aopt::testing::temp_dir dir;
  aopt::testing::daemon_process daemon(
      {"--listen", "127.0.0.1:0", "--db", (dir.path() / "db").string(), "--set",
       "server.roots=[\"" + std::string(AOPT_SOURCE_DIR) + "/corpus\"]"});
  REQUIRE(daemon.wait_ready());
  const std::string server = daemon.url();

  const auto submitted =
      aopt_cli({"submit", std::string(AOPT_SOURCE_DIR) + "/corpus/level1/add_custom", "--campaign",
                "cli", "--budget", "40", "--server", server, "--json"});
  REQUIRE_MESSAGE(submitted.succeeded(), (submitted.describe() + submitted.stderr_text));
  CHECK(nlohmann::json::parse(submitted.stdout_text).at("id") == "cli");

  uint64_t since = last_event_id(daemon);
  const auto paused = aopt_cli({"pause", "cli", "--server", server});
  REQUIRE_MESSAGE(paused.succeeded(), paused.stderr_text);
  CHECK(next_status(daemon, since, {"paused", "done"}) == "paused");

  const auto status = aopt_cli({"status", "--server", server, "--campaign", "cli", "--json"});
  REQUIRE_MESSAGE(status.succeeded(), status.stderr_text);
  const nlohmann::json view = nlohmann::json::parse(status.stdout_text);
  CHECK(view.at("status") == "paused");
  CHECK(view.at("running") == false);
  CHECK(view.at("evaluations").get<int>() < 40);

  since = last_event_id(daemon);
  const auto resumed = aopt_cli({"resume", "cli", "--server", server});
  REQUIRE_MESSAGE(resumed.succeeded(), resumed.stderr_text);
  CHECK(next_status(daemon, since, {"running"}) == "running");

  since = last_event_id(daemon);
  const auto cancelled = aopt_cli({"cancel", "cli", "--server", server});
  REQUIRE_MESSAGE(cancelled.succeeded(), cancelled.stderr_text);
  CHECK(next_status(daemon, since, {"cancelled", "done"}) == "cancelled");

  // A cancelled campaign cannot be resumed; the client reports the daemon's reason.
  const auto refused = aopt_cli({"resume", "cli", "--server", server});
  CHECK(!refused.succeeded());
  CHECK(refused.stderr_text.find("cancelled") != std::string::npos);

  const auto listed = aopt_cli({"status", "--server", server, "--json"});
  REQUIRE(listed.succeeded());
  const nlohmann::json all = nlohmann::json::parse(listed.stdout_text);
  REQUIRE(all.size() == 1);
  CHECK(all[0].at("status") == "cancelled");

  // Unreachable daemon: a clear error, exit status 1.
  const auto unreachable = aopt_cli({"status", "--server", "http://127.0.0.1:1"});
  CHECK(!unreachable.succeeded());
  CHECK(unreachable.stderr_text.find("cannot reach the daemon") != std::string::npos);
  daemon.signal(SIGTERM);
}
