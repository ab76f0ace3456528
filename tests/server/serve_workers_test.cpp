// Issue 19: `aopt serve --workers-listen` with an `aopt worker` process. The daemon is a pure
// coordinator (device.slots = 0), so a campaign submitted over the HTTP API can only complete on
// the worker's slot; /metrics and GET /api/v1/workers then count the worker's evaluations. Every
// wait is on a printed line or an HTTP poll with a deadline.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "daemon_process.hpp"
#include "server/http_client.hpp"
#include "support/line_process.hpp"
#include "support/temp_dir.hpp"

namespace {

using aopt::testing::line_process;
using stream = line_process::stream;

// The port in the daemon's "workers join on 127.0.0.1:PORT" line.
std::string workers_port(const aopt::testing::daemon_process& d) {
  for (const std::string& line : d.startup_lines()) {
    if (line.find("workers join on") == std::string::npos) continue;
    const std::string port = line.substr(line.rfind(':') + 1);
    return port.substr(0, port.find_first_not_of("0123456789"));
  }
  return "";
}

}  // namespace

TEST_CASE("a campaign submitted to aopt serve completes on a joined worker's slot") {
  aopt::testing::temp_dir dir;
  const std::string corpus = std::string(AOPT_SOURCE_DIR) + "/corpus";
  aopt::testing::daemon_process daemon({"--listen", "127.0.0.1:0", "--workers-listen",
                                        "127.0.0.1:0", "--db", (dir.path() / "db").string(),
                                        "--set", "server.roots=[\"" + corpus + "\"]", "--set",
                                        "device.slots=0", "--set", "workers.heartbeat_s=0.5"});
  REQUIRE(daemon.wait_ready());
  const std::string port = workers_port(daemon);
  REQUIRE(!port.empty());

  line_process worker({AOPT_BINARY, "worker", "--coordinator", "127.0.0.1:" + port, "--slots", "1",
                       "--set", "workers.rejoin_s=0"});
  const bool joined = worker.wait_for(stream::out, "joined 127.0.0.1:" + port).has_value();
  std::string said;
  for (const std::string& line : worker.lines(stream::err)) said += line + "\n";
  INFO("worker stderr:\n" << said);
  REQUIRE(joined);
  const nlohmann::json workers = daemon.call("GET", "/api/v1/workers").json();
  INFO(workers.dump());
  CHECK(workers.at("joined") == 1);

  const nlohmann::json body = {{"operators", {corpus + "/level1/adds_custom"}},
                               {"campaign", "on-a-worker"},
                               {"strategy", "stage1"},
                               {"budget", 2}};
  const auto created = daemon.call("POST", "/api/v1/campaigns", body.dump());
  REQUIRE_MESSAGE(created.status == 201, created.body);
  // The worker announces each lease it evaluates.
  REQUIRE(worker.wait_for(stream::out, "lease ").has_value());
  std::string status;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (status != "done" && status != "failed" && std::chrono::steady_clock::now() < deadline) {
    worker.drain(std::chrono::milliseconds(100));
    status = daemon.call("GET", "/api/v1/campaigns/on-a-worker").json().value("status", "");
  }
  REQUIRE(status == "done");

  // Every evaluation ran on the worker: the pool's total equals the worker's count.
  const nlohmann::json pool = daemon.call("GET", "/api/v1/workers").json();
  INFO(pool.dump());
  uint64_t on_worker = 0;
  for (const auto& owner : pool.at("owners")) {
    if (owner.at("name") != "local") on_worker += owner.at("evaluated").get<uint64_t>();
  }
  CHECK(on_worker > 0);
  const std::string metrics = daemon.call("GET", "/metrics").body;
  const size_t sample = metrics.find("aopt_slot_owner_evaluations_total{owner=\"w1@");
  REQUIRE(sample != std::string::npos);
  const size_t value = metrics.find("} ", sample);
  CHECK(std::stoull(metrics.substr(value + 2)) == on_worker);

  // On SIGTERM the daemon stops; the worker (workers.rejoin_s = 0) leaves with it.
  daemon.signal(SIGTERM);
  const int wstatus = daemon.wait();
  CHECK(WIFEXITED(wstatus));
  CHECK(WEXITSTATUS(wstatus) == 0);
  CHECK(worker.finish() == 0);
}
