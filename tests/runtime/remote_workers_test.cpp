// Issue 19: evaluation workers in other processes, joined over CAF's io module on loopback.
//
// A pure coordinator (`aopt run --workers-listen 127.0.0.1:0` with device.slots = 0) runs a
// campaign on three `aopt worker` processes; the test SIGKILLs the worker that announces the
// second lease while it evaluates it, starts a fourth, and checks that the campaign completes
// with every evaluation counted once (the killed lease queued again, the per-worker counts adding
// up) and the same final results as a single-process run with the same seed. A worker with a
// wrong secret is refused and never gets a lease; a listener on a non-loopback address without
// a secret is refused before anything runs. Every wait is on a line a process prints.
#include <doctest/doctest.h>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/line_process.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
using aopt::testing::line_process;
using stream = line_process::stream;

// The cheapest operator to simulate; three candidates keep the test short.
std::vector<std::string> run_args(const fs::path& dir) {
  return {AOPT_BINARY,
          "run",
          std::string(AOPT_SOURCE_DIR) + "/corpus/level1/adds_custom",
          "--db",
          (dir / "db").string(),
          "--report",
          (dir / "reports").string(),
          "--budget",
          "3",
          "--rounds",
          "1",
          "--jobs",
          "1",
          "--seed",
          "11",
          "--json"};
}

std::vector<std::string> coordinator_args(const fs::path& dir) {
  std::vector<std::string> a = run_args(dir);
  for (const char* extra : {"--workers-listen", "127.0.0.1:0", "--set", "device.slots=0", "--set",
                            "workers.heartbeat_s=0.5", "--set", "workers.heartbeat_timeout_s=20"}) {
    a.emplace_back(extra);
  }
  return a;
}

// The port a coordinator prints in "aopt: workers join on 127.0.0.1:PORT".
std::string workers_port(line_process& coordinator) {
  std::optional<std::string> line = coordinator.wait_for(stream::err, "workers join on");
  REQUIRE_MESSAGE(line.has_value(), "the coordinator did not listen for workers");
  return line->substr(line->rfind(':') + 1);
}

// A worker that leaves as soon as it loses its coordinator (workers.rejoin_s = 0), unless
// `rejoin_s` says otherwise.
std::unique_ptr<line_process> start_worker(const std::string& port,
                                           const std::vector<std::string>& env = {},
                                           const std::string& rejoin_s = "0") {
  return std::make_unique<line_process>(
      std::vector<std::string>{AOPT_BINARY, "worker", "--coordinator", "127.0.0.1:" + port,
                               "--slots", "1", "--set", "workers.rejoin_s=" + rejoin_s},
      env);
}

nlohmann::json summary_of(line_process& run) {
  const int code = run.finish();
  std::string errors;
  for (const std::string& line : run.lines(stream::err)) errors += line + "\n";
  INFO("stderr:\n" << errors);
  REQUIRE(code == 0);
  REQUIRE(!run.lines(stream::out).empty());
  return nlohmann::json::parse(run.lines(stream::out).back());
}

uint64_t lease_number(const std::string& line) {
  const size_t at = line.find("lease ");
  return std::stoull(line.substr(at + 6));
}

}  // namespace

TEST_CASE("a campaign on three workers survives a SIGKILLed worker and equals a local run") {
  aopt::testing::temp_dir tmp;
  line_process local(run_args(tmp.path() / "local"));
  const nlohmann::json reference = summary_of(local);

  line_process coordinator(coordinator_args(tmp.path() / "remote"));
  const std::string port = workers_port(coordinator);
  std::vector<std::unique_ptr<line_process>> workers;
  for (int i = 0; i < 3; ++i) {
    workers.push_back(start_worker(port));
    REQUIRE(workers.back()->wait_for(stream::out, "joined 127.0.0.1:" + port).has_value());
  }
  // The worker that starts the second lease is killed while it evaluates it (one evaluation
  // takes about a second; the line is printed when it starts).
  size_t victim = workers.size();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (victim == workers.size()) {
    REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline, "no worker got a second lease");
    for (size_t i = 0; i < workers.size() && victim == workers.size(); ++i) {
      while (std::optional<std::string> lease =
                 workers[i]->wait_for(stream::out, "lease ", std::chrono::seconds(0))) {
        if (lease_number(*lease) >= 2) victim = i;
      }
    }
    coordinator.drain(std::chrono::milliseconds(50));
  }
  workers[victim]->kill(SIGKILL);
  REQUIRE(workers[victim]->finish() == 128 + SIGKILL);
  REQUIRE(coordinator.wait_for(stream::err, "dropped").has_value());
  workers.push_back(start_worker(port));
  REQUIRE(workers.back()->wait_for(stream::out, "joined").has_value());

  const nlohmann::json remote = summary_of(coordinator);
  // The final results equal the single-process run's.
  REQUIRE(remote.at("operators").size() == reference.at("operators").size());
  CHECK(remote.at("operators") == reference.at("operators"));
  CHECK(remote.at("evaluations") == reference.at("evaluations"));
  CHECK(remote.at("trajectories") == reference.at("trajectories"));

  // Every evaluation counted once: the same device work as the local run, the killed lease
  // queued again, and the per-owner counts adding up to the pool's.
  const nlohmann::json& pool = remote.at("pool");
  const nlohmann::json& local_pool = reference.at("pool");
  CHECK(pool.at("evaluated") == local_pool.at("evaluated"));
  CHECK(pool.at("confirmations") == local_pool.at("confirmations"));
  CHECK(pool.at("validations") == local_pool.at("validations"));
  const nlohmann::json& w = pool.at("workers");
  CHECK(w.at("requeued").get<uint64_t>() >= 1);
  CHECK(w.at("joined") == 3);  // the killed one left
  uint64_t by_owner = 0;
  size_t departed = 0;
  for (const auto& owner : w.at("owners")) {
    by_owner += owner.at("evaluated").get<uint64_t>();
    if (owner.at("name") != "local" && owner.at("slots") == 0) ++departed;
  }
  CHECK(departed == 1);
  CHECK(by_owner == pool.at("evaluated").get<uint64_t>() +
                        pool.at("confirmations").get<uint64_t>() +
                        pool.at("validations").get<uint64_t>());
  // Each worker asked for each package (the tuning shape's, one per validation shape) once at
  // most, and at least one package crossed.
  const uint64_t packages = 1 + pool.at("validations").get<uint64_t>();
  CHECK(w.at("packages_sent").get<uint64_t>() >= 1);
  CHECK(w.at("packages_sent").get<uint64_t>() <= workers.size() * packages);

  // The workers leave when the coordinator is done.
  for (size_t i = 0; i < workers.size(); ++i) {
    if (i != victim) CHECK(workers[i]->finish() == 0);
  }
}

TEST_CASE("a worker with a wrong secret is refused and gets no work") {
  aopt::testing::temp_dir tmp;
  std::vector<std::string> args = coordinator_args(tmp.path());
  args[std::find(args.begin(), args.end(), "--budget") - args.begin() + 1] = "1";
  line_process coordinator(args, {"AOPT_WORKERS_SECRET=right-secret"});
  const std::string port = workers_port(coordinator);

  auto intruder = start_worker(port, {"AOPT_WORKERS_SECRET=wrong-secret"});
  CHECK(intruder->finish() == 1);
  bool said_refused = false;
  for (const std::string& line : intruder->lines(stream::err)) {
    said_refused = said_refused || line.find("wrong secret") != std::string::npos;
  }
  CHECK(said_refused);
  CHECK(intruder->lines(stream::out).empty());  // never joined, never leased anything
  REQUIRE(coordinator.wait_for(stream::err, "refused a worker").has_value());

  auto member = start_worker(port, {"AOPT_WORKERS_SECRET=right-secret"});
  REQUIRE(member->wait_for(stream::out, "joined").has_value());
  const nlohmann::json summary = summary_of(coordinator);
  const nlohmann::json& w = summary.at("pool").at("workers");
  CHECK(w.at("refused") == 1);
  CHECK(w.at("joined") == 1);
  REQUIRE(w.at("owners").size() == 2);  // "local" (no slots) and the one worker
  CHECK(member->finish() == 0);
}

TEST_CASE("listening for workers beyond loopback without a secret is refused") {
  aopt::testing::temp_dir tmp;
  std::vector<std::string> args = coordinator_args(tmp.path());
  std::replace(args.begin(), args.end(), std::string("127.0.0.1:0"), std::string("0.0.0.0:0"));
  line_process coordinator(args, {"AOPT_WORKERS_SECRET="});
  CHECK(coordinator.finish() == 2);
  bool explained = false;
  for (const std::string& line : coordinator.lines(stream::err)) {
    explained = explained || line.find("requires a shared secret") != std::string::npos;
  }
  CHECK(explained);
}

TEST_CASE("a worker that lost its coordinator joins the restarted one and gets work again") {
  aopt::testing::temp_dir tmp;
  line_process first(coordinator_args(tmp.path() / "first"));
  const std::string port = workers_port(first);
  auto worker = start_worker(port, {}, "60");
  REQUIRE(worker->wait_for(stream::out, "joined 127.0.0.1:" + port).has_value());
  REQUIRE(worker->wait_for(stream::out, "lease ").has_value());
  // The coordinator dies mid-campaign; the worker notices the lost connection and retries.
  first.kill(SIGKILL);
  REQUIRE(first.finish() == 128 + SIGKILL);
  REQUIRE(worker->wait_for(stream::err, "left the coordinator").has_value());
  REQUIRE(worker->wait_for(stream::err, "again in").has_value());

  // A new coordinator on the same port (another database: a campaign of its own).
  std::vector<std::string> args = coordinator_args(tmp.path() / "second");
  std::replace(args.begin(), args.end(), std::string("127.0.0.1:0"), "127.0.0.1:" + port);
  line_process second(args);
  REQUIRE(second.wait_for(stream::err, "workers join on").has_value());
  REQUIRE(worker->wait_for(stream::out, "joined 127.0.0.1:" + port).has_value());
  const nlohmann::json summary = summary_of(second);
  const nlohmann::json& w = summary.at("pool").at("workers");
  CHECK(w.at("joined") == 1);
  uint64_t by_worker = 0;
  for (const auto& owner : w.at("owners")) {
    if (owner.at("name") != "local") by_worker += owner.at("evaluated").get<uint64_t>();
  }
  // Every evaluation of the second campaign ran on the worker that rejoined (no local slots).
  CHECK(by_worker > 0);
  CHECK(by_worker == summary.at("pool").at("evaluated").get<uint64_t>() +
                         summary.at("pool").at("confirmations").get<uint64_t>() +
                         summary.at("pool").at("validations").get<uint64_t>());
  // It keeps trying to rejoin after the second coordinator ended, until told to stop.
  REQUIRE(worker->wait_for(stream::err, "left the coordinator").has_value());
  worker->kill(SIGTERM);
  CHECK(worker->finish() == 0);
}
