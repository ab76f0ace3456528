// The real `aopt` binary and `aopt serve` process against input meant to break them (issue 21):
// a candidate printing bytes that are not UTF-8, a package linking out of itself, bad arguments
// and settings (each exits 2 naming the problem), a damaged database, and a daemon under
// `ulimit -n 128` flooded with 300 connections while its campaign evaluates.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "base/utf8.hpp"
#include "daemon_process.hpp"
#include "server/http_client.hpp"
#include "storage/store.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
namespace net = boost::asio;

const fs::path ops_dir = fs::path(AOPT_TEST_DATA_DIR) / "ops";
const fs::path hostile_cli_op = fs::path(AOPT_SOURCE_DIR) / "corpus" / "level1" / "add_custom";
const std::string replacement_char = "\xEF\xBF\xBD";

aopt::subprocess_result run_aopt(const std::vector<std::string>& args, double limit_s = 180) {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.limits.wall_seconds = limit_s;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

// hostile_cli_op copied under `root`, its kernel replaced by a link to `target`.
fs::path linked_package(const fs::path& root, const fs::path& target) {
  const fs::path pkg = root / "add_custom";
  fs::copy(hostile_cli_op, pkg, fs::copy_options::recursive);
  fs::remove(pkg / "op_kernel/add_custom.cpp");
  fs::create_symlink(target, pkg / "op_kernel/add_custom.cpp");
  return pkg;
}

// hostile_cli_op copied under `root` with `edit` applied to its op.json.
fs::path edited_package(const fs::path& root, const std::string& name,
                        const std::function<void(nlohmann::json&)>& edit) {
  const fs::path pkg = root / name;
  fs::copy(hostile_cli_op, pkg, fs::copy_options::recursive);
  nlohmann::json spec = nlohmann::json::parse(std::ifstream(pkg / "op.json"));
  edit(spec);
  std::ofstream(pkg / "op.json", std::ios::trunc) << spec.dump(1);
  return pkg;
}

}  // namespace

TEST_CASE("aopt eval --json: a candidate printing 0xFF on stderr fails cleanly with UTF-8 JSON") {
  const auto r = run_aopt({"eval", (ops_dir / "add_bad_bytes").string(), "--json"});
  CHECK_MESSAGE(r.exited, r.describe());
  CHECK(r.exit_code == 1);
  nlohmann::json j;
  REQUIRE_NOTHROW(j = nlohmann::json::parse(r.stdout_text));
  CHECK(j.at("status") == "runtime_error");
  bool replaced = false;
  for (const auto& line : j.at("diagnostics")) {
    replaced = replaced || line.get<std::string>().find("bad bytes: " + replacement_char +
                                                        replacement_char) != std::string::npos;
  }
  CHECK_MESSAGE(replaced, j.at("diagnostics").dump());
}

TEST_CASE("a campaign over a candidate printing 0xFF completes, its operator failed") {
  aopt::testing::temp_dir dir;
  const fs::path db = dir.path() / "db";
  const auto r =
      run_aopt({"run", (ops_dir / "add_bad_bytes").string(), "--db", db.string(), "--budget", "1",
                "--report", (dir.path() / "reports").string(), "--campaign", "bad-bytes"});
  REQUIRE_MESSAGE(r.exited, r.describe());
  CHECK_MESSAGE(!r.timed_out, r.stderr_text);
  const auto status = run_aopt({"status", "--db", db.string(), "--json"});
  REQUIRE(status.exit_code == 0);
  const nlohmann::json campaigns = nlohmann::json::parse(status.stdout_text);
  REQUIRE(campaigns.size() == 1);
  CHECK(campaigns[0].at("status") == "done");
  CHECK(campaigns[0].at("episodes_finished") == 1);
}

TEST_CASE("a package file linking out of the package: aopt eval and submit --upload exit 2") {
  aopt::testing::temp_dir dir;
  const fs::path secret = dir.path() / "secret.txt";
  std::ofstream(secret) << "TOP-SECRET-CONTENT";
  const fs::path pkg = linked_package(dir.path(), secret);
  const std::string named = "op_kernel/add_custom.cpp -> " + secret.string();

  const auto eval = run_aopt({"eval", pkg.string()});
  CHECK(eval.exit_code == 2);
  CHECK_MESSAGE(eval.stderr_text.find(named) != std::string::npos, eval.stderr_text);
  CHECK(eval.stdout_text.find("TOP-SECRET") == std::string::npos);

  // The client reads every package before it contacts the daemon (none listens here).
  const auto submit =
      run_aopt({"submit", "--server", "http://127.0.0.1:9", "--upload", pkg.string()});
  CHECK(submit.exit_code == 2);
  CHECK_MESSAGE(submit.stderr_text.find(named) != std::string::npos, submit.stderr_text);

  const auto run = run_aopt({"run", pkg.string(), "--db", (dir.path() / "db").string()});
  CHECK(run.exit_code == 2);
  CHECK(run.stderr_text.find(named) != std::string::npos);
}

TEST_CASE("bad arguments, settings and op.json files exit 2 with a message naming them") {
  aopt::testing::temp_dir dir;
  const std::string db = (dir.path() / "db").string();
  const std::string op = hostile_cli_op.string();
  const fs::path zero_dim = edited_package(dir.path(), "zero_dim", [](nlohmann::json& j) {
    j["inputs"][0]["shape"] = {8, 0};
  });
  // Two inputs of one name (an output may take an input's name: CANN's ref output).
  const fs::path twice = edited_package(dir.path(), "twice", [](nlohmann::json& j) {
    j["inputs"][1]["name"] = j["inputs"][0]["name"];
  });
  struct bad_case {
    std::vector<std::string> args;
    std::string named;  // the message names this
  };
  const std::vector<bad_case> cases = {
      {{"eval", op, "--timeout", "inf"}, "--timeout"},
      {{"eval", op, "--work-dir", "/proc/aopt-nowhere"}, "/proc/aopt-nowhere"},
      {{"eval", zero_dim.string()}, "shape[1]"},
      {{"eval", twice.string()}, "used twice"},
      {{"run", op, "--db", db, "--seed", "-3"}, "--seed"},
      {{"run", op, "--db", db, "--set", "device.timeout_s=inf"}, "device.timeout_s"},
      {{"run", op, "--db", db, "--set", "device.profile=/etc/passwd"}, "device.profile"},
      {{"run", op, "--db", db, "--set", "device.work_dir=/proc/aopt-nowhere"}, "device.work_dir"},
      {{"submit", "--server", "http://127.0.0.1:9", op, "--budget", "-1"}, "--budget"},
      {{"status", "unexpected-argument"}, "unexpected-argument"},
      {{"bogus-command"}, "bogus-command"},
      {{"run"}, "inputs"},
  };
  for (const bad_case& c : cases) {
    std::string joined;
    for (const std::string& a : c.args) joined += a + " ";
    INFO(joined);
    const auto r = run_aopt(c.args);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.stderr_text.find(c.named) != std::string::npos, r.stderr_text);
  }
  // The refused starts left no campaign behind, running or otherwise.
  const auto status = run_aopt({"status", "--db", db, "--json"});
  CHECK(status.exit_code == 0);
  const nlohmann::json listed = nlohmann::json::parse(status.stdout_text);
  for (const auto& c : listed) CHECK(c.at("status") != "running");
}

TEST_CASE("aopt status on a database with a damaged table file says so and exits 1") {
  aopt::testing::temp_dir dir;
  const fs::path db = dir.path() / "db";
  {
    auto store = aopt::storage::store::open(db);
    REQUIRE(store.ok());
    REQUIRE((*store)->put_campaign("c-1", {{"id", "c-1"}, {"status", "done"}}).ok());
  }
  {
    // Reopening replays the write-ahead log into a table file.
    auto store = aopt::storage::store::open(db);
    REQUIRE(store.ok());
  }
  const auto healthy = run_aopt({"status", "--db", db.string()});
  REQUIRE(healthy.exit_code == 0);
  REQUIRE(healthy.stdout_text.find("c-1") != std::string::npos);
  int damaged = 0;
  for (const auto& entry : fs::directory_iterator(db)) {
    if (entry.path().extension() != ".sst") continue;
    std::fstream f(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    for (std::streamoff at = 16; at < 256; at += 3) {
      f.seekg(at);
      const char c = static_cast<char>(f.get() ^ 0x5a);
      f.seekp(at);
      f.put(c);
    }
    ++damaged;
  }
  REQUIRE(damaged > 0);
  const auto r = run_aopt({"status", "--db", db.string()});
  CHECK(r.exit_code == 1);
  CHECK(r.stdout_text.find("done") == std::string::npos);
  CHECK_MESSAGE(r.stderr_text.find("damaged") != std::string::npos, r.stderr_text);
}

TEST_CASE(
    "a daemon under ulimit -n 128 flooded with 300 connections keeps its campaign's baseline") {
  aopt::testing::temp_dir dir;
  aopt::testing::daemon_process daemon(
      {"--listen", "127.0.0.1:0", "--db", (dir.path() / "db").string(), "--set",
       "server.roots=[\"" + hostile_cli_op.parent_path().string() + "\"]", "--set",
       "device.slots=1"},
      {}, 128);
  REQUIRE(daemon.wait_ready());
  auto url = aopt::server::parse_server_url(daemon.url());
  REQUIRE(url.ok());
  auto created = aopt::server::http_call(
      *url, "POST", "/api/v1/campaigns",
      nlohmann::json{{"operators", {hostile_cli_op.string()}}, {"budget", 1}, {"campaign", "flood"}}
          .dump(),
      "");
  REQUIRE(created.ok());
  REQUIRE(created->status == 201);

  // The campaign is followed on an event stream opened before the flood, so the flood cannot
  // take its place; it ends at the campaign's final status.
  std::promise<void> following;
  std::string final_status;
  std::thread follower([&] {
    bool announced = false;
    const auto announce = [&] {
      if (!announced) following.set_value();
      announced = true;
    };
    aopt::status s = aopt::server::read_event_stream(
        *url, "/api/v1/events?since=0&campaign=flood", "", [&](const aopt::server::sse_message& m) {
          announce();
          const nlohmann::json j = nlohmann::json::parse(m.data);
          const std::string st = j.value("status", "");
          if (m.type == "campaign_status" && st != "running" && st != "stopping") {
            final_status = st;
            return false;
          }
          return true;
        });
    announce();
  });
  REQUIRE(following.get_future().wait_for(std::chrono::seconds(60)) == std::future_status::ready);

  // 300 connections opened while the baseline compiles and runs, held until the campaign ends.
  net::io_context ioc;
  const net::ip::tcp::endpoint at(net::ip::make_address("127.0.0.1"), daemon.port());
  std::vector<std::unique_ptr<net::ip::tcp::socket>> flood;
  for (int i = 0; i < 300; ++i) {
    auto s = std::make_unique<net::ip::tcp::socket>(ioc);
    boost::system::error_code ec;
    s->connect(at, ec);
    if (!ec) flood.push_back(std::move(s));
  }
  CHECK(flood.size() > 100);
  follower.join();
  flood.clear();
  CHECK(final_status == "done");
  // Once the flood is gone, the daemon serves again (the refused clients retry).
  std::optional<aopt::server::client_response> view;
  for (int attempt = 0; attempt < 100 && (!view || view->status == 503); ++attempt) {
    auto res = aopt::server::http_call(*url, "GET", "/api/v1/campaigns/flood", "", "");
    REQUIRE(res.ok());
    view = *res;
    if (view->status == 503) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  REQUIRE(view->status == 200);
  const nlohmann::json campaign = view->json();
  INFO(campaign.dump());
  REQUIRE(campaign.at("operator_results").size() == 1);
  const nlohmann::json& op = campaign.at("operator_results")[0];
  CHECK(op.value("baseline_us", 0.0) > 0);
  CHECK(op.value("phase", "") == "done");
  daemon.signal(SIGTERM);
  const int st = daemon.wait();
  CHECK(WIFEXITED(st));
}
