// The longer fuzz run of issue 21: a real `aopt serve` process (token-protected, uploads on, an
// empty root) gets many seeded hostile requests (mutated valid requests over every route, raw
// garbage, uploads with mutated op.json files), and `aopt eval` runs on packages with mutated
// op.json files. It prints what was tried and what broke:
//
//   requests tried, answered, closed without answer, 4xx, 5xx, daemon crashes (target 0)
//   aopt eval runs, exit statuses, crashes (a signal or an exit status outside 0..3; target 0)
//
// A crashed daemon is restarted and the run goes on. Usage:
//   bench_fuzz_daemon [--requests N] [--uploads N] [--evals N] [--seed S]
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "base/subprocess.hpp"
#include "base/utf8.hpp"
#include "tests/server/daemon_process.hpp"
#include "tests/support/request_fuzzer.hpp"

namespace {

namespace fs = std::filesystem;
using aopt::testing::daemon_process;
using aopt::testing::request_fuzzer;

const std::string token = "bench-fuzz-token";
const fs::path add_custom = fs::path(AOPT_SOURCE_DIR) / "corpus" / "level1" / "add_custom";

struct tally {
  uint64_t tried = 0, answered = 0, closed = 0, client_errors = 0, server_errors = 0,
           unavailable = 0, not_utf8 = 0, crashes = 0;
};

std::unique_ptr<daemon_process> start_daemon(const fs::path& dir) {
  fs::create_directories(dir / "root");
  auto d = std::make_unique<daemon_process>(
      std::vector<std::string>{"--listen", "127.0.0.1:0", "--db", (dir / "db").string(), "--set",
                               "server.roots=[\"" + (dir / "root").string() + "\"]"},
      std::vector<std::string>{"AOPT_TOKEN=" + token});
  if (!d->wait_ready()) {
    fmt::print(stderr, "bench_fuzz_daemon: the daemon did not start\n");
    std::exit(1);
  }
  return d;
}

// True when the daemon process has ended (it is reaped).
bool died(daemon_process& d) {
  int status = 0;
  return waitpid(d.pid(), &status, WNOHANG) == d.pid();
}

void send(daemon_process& d, const std::string& request, tally& t) {
  const aopt::testing::raw_answer a = aopt::testing::raw_exchange(d.port(), request);
  ++t.tried;
  if (a.status == 0) {
    ++t.closed;
  } else {
    ++t.answered;
    if (a.status == 503)
      ++t.unavailable;
    else if (a.status >= 500)
      ++t.server_errors;
    else if (a.status >= 400)
      ++t.client_errors;
  }
  if (!aopt::is_valid_utf8(a.body)) ++t.not_utf8;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fuzz a real aopt serve and aopt eval with seeded hostile input"};
  uint64_t requests = 20000, uploads = 3000, evals = 20, seed = 20261124;
  app.add_option("--requests", requests, "mutated and garbage HTTP requests");
  app.add_option("--uploads", uploads, "uploads with a mutated op.json");
  app.add_option("--evals", evals, "aopt eval runs on packages with a mutated op.json");
  app.add_option("--seed", seed, "fuzzer seed");
  CLI11_PARSE(app, argc, argv);

  const fs::path dir = fs::temp_directory_path() / fmt::format("aopt-bench-fuzz-{}", getpid());
  fs::create_directories(dir);
  request_fuzzer fuzz(seed, request_fuzzer::api_templates(add_custom, token),
                      nlohmann::json::parse(request_fuzzer::read_text(add_custom / "op.json")));
  auto daemon = start_daemon(dir);
  tally http;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t i = 0; i < requests + uploads; ++i) {
    const std::string request =
        i < requests ? fuzz.next_request()
                     : request_fuzzer::request(
                           "POST", "/api/v1/operators",
                           request_fuzzer::upload_body(add_custom, fuzz.next_op_json()), token);
    send(*daemon, request, http);
    if (i % 50 == 49 || i + 1 == requests + uploads) {
      const aopt::testing::raw_answer health = aopt::testing::raw_exchange(
          daemon->port(), request_fuzzer::request("GET", "/healthz", "", ""));
      if (died(*daemon) || health.status != 200) {
        ++http.crashes;
        fmt::print(stderr, "daemon down after request {} (seed {})\n", i, seed);
        daemon.reset();
        daemon = start_daemon(dir / fmt::format("restart-{}", i));
      }
    }
  }
  const double http_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  daemon->signal(SIGTERM);
  daemon->wait();

  // aopt eval on packages whose op.json is mutated: every run ends with a status of 0..3.
  std::map<std::string, uint64_t> eval_outcomes;
  uint64_t eval_crashes = 0;
  const fs::path pkg = dir / "eval" / "add_custom";
  fs::create_directories(pkg.parent_path());
  fs::copy(add_custom, pkg, fs::copy_options::recursive);
  for (uint64_t i = 0; i < evals; ++i) {
    std::ofstream(pkg / "op.json", std::ios::binary | std::ios::trunc) << fuzz.next_op_json();
    aopt::subprocess_options o;
    o.argv = {AOPT_BINARY, "eval", pkg.string(), "--json", "--work-dir", (dir / "work").string()};
    o.limits.wall_seconds = 300;
    auto r = aopt::run_subprocess(o);
    if (!r.ok()) {
      fmt::print(stderr, "cannot run aopt eval: {}\n", r.error().to_string());
      return 1;
    }
    const bool crashed = !r->exited || r->exit_code > 3;
    eval_crashes += crashed ? 1 : 0;
    eval_outcomes[r->exited ? fmt::format("exit {}", r->exit_code) : r->describe()]++;
    if (crashed) fmt::print(stderr, "aopt eval crashed ({}) on mutant {}\n", r->describe(), i);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);

  fmt::print("fuzz seed {}\n", seed);
  fmt::print(
      "HTTP: {} requests tried ({} mutated/garbage, {} uploads of a mutated op.json) in {:.1f} s; "
      "{} answered, {} closed without answer; {} 4xx, {} 503, {} other 5xx; {} answers not "
      "UTF-8; daemon crashes {}\n",
      http.tried, requests, uploads, http_s, http.answered, http.closed, http.client_errors,
      http.unavailable, http.server_errors, http.not_utf8, http.crashes);
  std::string outcomes;
  for (const auto& [what, n] : eval_outcomes) outcomes += fmt::format(" {}: {};", what, n);
  fmt::print("aopt eval: {} runs on mutated op.json;{} crashes {}\n", evals, outcomes,
             eval_crashes);
  return http.crashes + eval_crashes == 0 ? 0 : 1;
}
