// One `aopt serve` daemon, two campaigns whose mutator asks the LLM, llm.max_concurrency = 1:
// the daemon's one gateway admits one request at a time over both campaigns. The stub endpoint
// holds the first request unanswered; the other campaign's call must then wait in the gateway
// (seen in /metrics as aopt_llm_queue_depth 1) instead of reaching the endpoint, as it would
// with a gateway per campaign.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon_process.hpp"
#include "server/http_client.hpp"
#include "support/openai_stub_server.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

// The value of an unlabelled sample in /metrics; -1 when the family is missing.
double metric(const aopt::testing::daemon_process& d, const std::string& name) {
  const std::string text = d.call("GET", "/metrics").body;
  const std::string prefix = "\n" + name + " ";
  const size_t at = text.find(prefix);
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + prefix.size()));
}

// Polls `condition` (state read over HTTP) until it holds; false after `timeout`.
bool eventually(const std::function<bool()>& condition, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace

TEST_CASE("campaigns of one daemon share its LLM gateway and its concurrency limit") {
  aopt::test::openai_stub_server endpoint;
  endpoint.script({aopt::test::held_reply("no tiling in this answer")});
  endpoint.fallback(aopt::test::reply("no tiling in this answer either"));

  aopt::testing::temp_dir dir;
  const std::string corpus = std::string(AOPT_SOURCE_DIR) + "/corpus";
  std::vector<std::string> args = {"--listen", "127.0.0.1:0", "--db", (dir.path() / "db").string()};
  for (const std::string& s : std::vector<std::string>{
           "server.roots=[\"" + corpus + "\"]", "device.slots=2", "roles.mutator.policy=llm",
           "llm.base_url=" + endpoint.base_url(), "llm.model=stub-model", "llm.max_retries=0",
           "llm.max_concurrency=1", "llm.cache=off"}) {
    args.push_back("--set");
    args.push_back(s);
  }
  aopt::testing::daemon_process daemon(args);
  REQUIRE(daemon.wait_ready());
  CHECK(metric(daemon, "aopt_llm_queue_depth") == 0);

  for (const char* op : {"add_custom", "relu_custom"}) {
    const nlohmann::json body = {{"operators", {corpus + "/level1/" + std::string(op)}},
                                 {"campaign", op},
                                 {"strategy", "stage1"},
                                 {"budget", 2}};
    const auto created = daemon.call("POST", "/api/v1/campaigns", body.dump());
    REQUIRE_MESSAGE(created.status == 201, created.body);
  }

  // Both mutators have asked: one request is held at the endpoint, the other waits in the
  // daemon's gateway.
  REQUIRE(eventually([&] { return endpoint.held() == 1; }, std::chrono::seconds(120)));
  REQUIRE(eventually([&] { return metric(daemon, "aopt_llm_queue_depth") == 1; },
                     std::chrono::seconds(120)));
  CHECK(endpoint.chat_requests() == 1);
  CHECK(metric(daemon, "aopt_llm_in_flight") == 1);

  endpoint.release_held();
  for (const std::string id : {"add_custom", "relu_custom"}) {
    REQUIRE(eventually(
        [&] { return daemon.call("GET", "/api/v1/campaigns/" + id).json().at("status") == "done"; },
        std::chrono::seconds(120)));
  }
  // Every step of both campaigns asked the endpoint through the one gateway.
  CHECK(endpoint.chat_requests() == 4);
  CHECK(metric(daemon, "aopt_llm_requests_sent_total") == 4);
  CHECK(metric(daemon, "aopt_llm_queue_depth") == 0);
  CHECK(endpoint.reported_usage().prompt_tokens > 0);
}
