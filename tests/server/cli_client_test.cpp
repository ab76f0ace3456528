// The `aopt` client commands against a real daemon: submit (with daemon-side paths and with
// uploaded packages), status --server, pause, resume, cancel and watch, each checked through the
// daemon's own answers, its event stream and the client's output.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>

#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "daemon_process.hpp"
#include "server/http_client.hpp"
#include "support/openai_stub_server.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path add_custom = fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom";

aopt::subprocess_result aopt_cli(const std::vector<std::string>& args) {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.limits.wall_seconds = 120;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
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

// A running `aopt` client with stdout and stderr on one pipe (so not on a terminal), read line by
// line while it runs. It gets SIGALRM after 120 s, so a client that never ends fails the test
// instead of hanging it.
class cli_child {
 public:
  explicit cli_child(const std::vector<std::string>& args) {
    int fds[2];
    REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
    std::vector<std::string> argv = {AOPT_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(fds[1], STDERR_FILENO);
      // Sockets of this process, such as the LLM stub's connection to the daemon, must close
      // when this process closes them, not live on in the client.
      close_range(3, ~0u, 0);
      alarm(120);
      std::vector<char*> cargs;
      for (const std::string& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
      cargs.push_back(nullptr);
      execv(cargs[0], cargs.data());
      _exit(127);
    }
    close(fds[1]);
    out_ = fdopen(fds[0], "r");
  }
  ~cli_child() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    std::fclose(out_);
  }
  cli_child(const cli_child&) = delete;
  cli_child& operator=(const cli_child&) = delete;

  // The next line it printed (kept in output()), or nullopt once its output ended.
  std::optional<std::string> next_line() {
    char* line = nullptr;
    size_t capacity = 0;
    std::optional<std::string> text;
    if (getline(&line, &capacity, out_) > 0) text = line;
    free(line);
    if (text) output_ += *text;
    return text;
  }
  // Reads the rest of its output, then waits for it; returns its wait status.
  int finish() {
    while (next_line()) {
    }
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }
  const std::string& output() const { return output_; }

 private:
  pid_t pid_ = -1;
  std::FILE* out_ = nullptr;
  std::string output_;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

nlohmann::json get_json(const aopt::testing::daemon_process& d, const std::string& target) {
  auto url = aopt::server::parse_server_url(d.url());
  REQUIRE(url.ok());
  auto res = aopt::server::http_call(*url, "GET", target, "", "");
  REQUIRE_MESSAGE(res.ok(), res.error().to_string());
  REQUIRE_MESSAGE(res->status == 200, res->body);
  return res->json();
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

TEST_CASE("aopt submit --upload runs a package the daemon cannot read to completion") {
  aopt::testing::temp_dir dir;
  const fs::path package = dir.path() / "mine" / "add_custom";
  fs::create_directories(package.parent_path());
  fs::copy(add_custom, package, fs::copy_options::recursive);
  fs::create_directories(dir.path() / "roots");
  aopt::testing::daemon_process daemon(
      {"--listen", "127.0.0.1:0", "--db", (dir.path() / "db").string(), "--set",
       "server.roots=[\"" + (dir.path() / "roots").string() + "\"]"});
  REQUIRE(daemon.wait_ready());
  const std::string server = daemon.url();

  // As a path the package is outside the daemon's roots: only the upload can work.
  const auto by_path = aopt_cli({"submit", package.string(), "--server", server});
  CHECK(!by_path.succeeded());
  CHECK(contains(by_path.stderr_text, "outside the folders this daemon may read"));

  // --watch follows the campaign to its end; whether it is still running when the watch starts
  // or already done, the watch ends with the campaign's outcome.
  const auto submitted =
      aopt_cli({"submit", "--upload", package.string(), "--campaign", "up", "--budget", "1",
                "--rounds", "1", "--server", server, "--watch"});
  REQUIRE_MESSAGE(submitted.succeeded(), (submitted.describe() + submitted.stderr_text));
  CHECK(contains(submitted.stdout_text, "campaign up submitted (1 operators)"));
  CHECK(contains(submitted.stdout_text, "campaign up done:"));

  const auto status = aopt_cli({"status", "--server", server, "--campaign", "up", "--json"});
  REQUIRE_MESSAGE(status.succeeded(), status.stderr_text);
  const nlohmann::json view = nlohmann::json::parse(status.stdout_text);
  CHECK(view.at("status") == "done");
  CHECK(view.at("evaluations") == 1);
  REQUIRE(view.at("operator_results").size() == 1);
  CHECK(view.at("operator_results")[0].at("name") == "add_custom");
  daemon.signal(SIGTERM);
}

TEST_CASE("aopt watch off a terminal prints plain progress lines and ends with the outcome") {
  // The campaign's LLM mutator calls a stub that never answers, so the campaign is certainly
  // running while the watch attaches; closing the stub fails that step (llm.max_retries=0: no
  // retry), which spends the budget of 1 and ends the campaign.
  std::optional<aopt::test::openai_stub_server> llm;
  llm.emplace();
  llm->script({aopt::test::stall()});
  aopt::testing::temp_dir dir;
  aopt::testing::daemon_process daemon(
      {"--listen", "127.0.0.1:0", "--db", (dir.path() / "db").string(), "--set",
       "server.roots=[\"" + std::string(AOPT_SOURCE_DIR) + "/corpus\"]", "--set",
       "roles.mutator.policy=\"llm\"", "--set", "llm.model=\"stub\"", "--set",
       "llm.base_url=\"" + llm->base_url() + "\"", "--set", "llm.api_key_env=\"\"", "--set",
       "llm.max_retries=0"});
  REQUIRE(daemon.wait_ready());
  const std::string server = daemon.url();
  const auto submitted = aopt_cli({"submit", add_custom.string(), "--campaign", "w", "--budget",
                                   "1", "--rounds", "1", "--server", server});
  REQUIRE_MESSAGE(submitted.succeeded(), (submitted.describe() + submitted.stderr_text));
  REQUIRE(llm->wait_for_requests(1, std::chrono::seconds(120)));

  cli_child watch({"watch", "w", "--server", server});
  // Its first line is the replayed start of the episode: it found the campaign running.
  const std::optional<std::string> first = watch.next_line();
  REQUIRE(first.has_value());
  CHECK(*first == "[start] add_custom\n");
  llm.reset();

  const int st = watch.finish();
  INFO(watch.output());
  REQUIRE(WIFEXITED(st));
  CHECK(WEXITSTATUS(st) == 0);
  CHECK(contains(watch.output(), "[eval]  add_custom round 1 stage 1 0/1 ok baseline"));
  CHECK(contains(watch.output(), "[done]  add_custom done"));
  CHECK(contains(watch.output(), "campaign w done: GM speedup"));
  CHECK(contains(watch.output(), "  add_custom "));
  // Plain lines: no cursor movement or clearing, as on a terminal.
  CHECK(!contains(watch.output(), "\x1b["));
  CHECK(get_json(daemon, "/api/v1/campaigns/w").at("status") == "done");
  daemon.signal(SIGTERM);
}

TEST_CASE("aopt submit --upload refuses a bad package, naming its path, and uploads nothing") {
  aopt::testing::temp_dir dir;
  const fs::path good = dir.path() / "good";
  fs::copy(add_custom, good, fs::copy_options::recursive);
  const fs::path no_spec = dir.path() / "no_spec";
  fs::copy(add_custom, no_spec, fs::copy_options::recursive);
  fs::remove(no_spec / "op.json");
  const fs::path too_big = dir.path() / "too_big";
  fs::copy(add_custom, too_big, fs::copy_options::recursive);
  std::ofstream(too_big / "op_kernel" / "add_custom.cpp")
      << std::string((size_t{1} << 20) + 1, '/');
  aopt::testing::daemon_process daemon({"--listen", "127.0.0.1:0", "--db",
                                        (dir.path() / "db").string(), "--set",
                                        "server.roots=[\"" + dir.path().string() + "\"]"});
  REQUIRE(daemon.wait_ready());
  const std::string server = daemon.url();

  // The good package comes first: every package is read before any is sent.
  const auto missing_spec = aopt_cli(
      {"submit", "--upload", good.string(), "--upload", no_spec.string(), "--server", server});
  CHECK(missing_spec.exited);
  CHECK(missing_spec.exit_code == 2);
  CHECK(contains(missing_spec.stderr_text, no_spec.string() + ": no operator package"));

  const auto large = aopt_cli({"submit", "--upload", too_big.string(), "--server", server});
  CHECK(large.exit_code == 2);
  CHECK(contains(
      large.stderr_text,
      fs::weakly_canonical(too_big / "op_kernel" / "add_custom.cpp").string() + ": 1048577 bytes"));

  const auto missing_dir =
      aopt_cli({"submit", "--upload", (dir.path() / "nowhere").string(), "--server", server});
  CHECK(missing_dir.exit_code == 2);
  CHECK(contains(missing_dir.stderr_text, (dir.path() / "nowhere").string() + ": no such"));

  CHECK(get_json(daemon, "/api/v1/campaigns").at("campaigns").empty());
  CHECK(!fs::exists(dir.path() / "db" / "uploads"));
  daemon.signal(SIGTERM);
}
