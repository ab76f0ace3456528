// Issue 4: `kill -9` at any point, then the same command (or `aopt resume`) continues every
// unfinished episode from its last persisted state; completed evaluations are not redone; the
// final per-operator results equal those of an uninterrupted run with the same seed.
//
// The test kills a real `aopt run` process with SIGKILL at points a seeded RNG picks (after the
// k-th progress line of any kind plus a random delay, so that most kills land in the middle of
// an evaluation, between two persisted steps; the first one before any evaluation completes),
// continues alternately with the same `aopt run` command and with `aopt resume <campaign>`, and
// compares the outcome, the persisted candidates and the device work with an uninterrupted run.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "storage/store.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

constexpr int budget = 4;

// Two of the cheapest operators to simulate (about 1 s of CPU per evaluation), to keep the test
// short; both find a faster tiling within the budget.
std::vector<std::string> run_args(const fs::path& db, const fs::path& reports) {
  return {AOPT_BINARY,
          "run",
          std::string(AOPT_SOURCE_DIR) + "/corpus/level1/adds_custom",
          std::string(AOPT_SOURCE_DIR) + "/corpus/level1/sigmoid_custom",
          "--db",
          db.string(),
          "--report",
          reports.string(),
          "--budget",
          std::to_string(budget),
          "--rounds",
          "1",
          "--jobs",
          "2",
          "--seed",
          "11",
          "--json"};
}

std::vector<std::string> resume_args(const fs::path& db, const std::string& campaign) {
  return {AOPT_BINARY, "resume", campaign, "--db", db.string(), "--json"};
}

struct kill_point {
  size_t after_lines = 1;  // SIGKILL after this many progress lines of any kind ...
  int delay_ms = 0;        // ... and this much later
};

struct attempt {
  std::vector<std::string> lines;  // progress lines (stderr), also those printed before the kill
  bool killed = false;
  int exit_code = -1;
  std::string stdout_text;
};

// Runs `argv` with stderr on a pipe read line by line and stdout in `stdout_file`. With
// `kill_at`, SIGKILLs it at that point unless it has exited first. Returns once it has exited.
attempt run_attempt(const std::vector<std::string>& argv, const fs::path& stdout_file,
                    std::optional<kill_point> kill_at) {
  std::vector<char*> cargs;
  for (const std::string& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
  cargs.push_back(nullptr);
  int err_pipe[2];
  REQUIRE(pipe2(err_pipe, O_CLOEXEC) == 0);
  const int out_fd =
      open(stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, S_IRUSR | S_IWUSR);
  REQUIRE(out_fd >= 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(err_pipe[1], STDERR_FILENO);
    dup2(out_fd, STDOUT_FILENO);
    execv(cargs[0], cargs.data());
    dprintf(STDERR_FILENO, "exec %s: %s\n", cargs[0], strerror(errno));
    _exit(127);
  }
  close(err_pipe[1]);
  close(out_fd);
  FILE* err = fdopen(err_pipe[0], "r");
  REQUIRE(err != nullptr);
  attempt a;
  char* line = nullptr;
  size_t capacity = 0;
  bool kill_sent = false;
  // Reads to the end: the lines a killed process printed before it died are steps it persisted.
  while (getline(&line, &capacity, err) > 0) {
    a.lines.emplace_back(line);
    if (kill_at && !kill_sent && a.lines.size() == kill_at->after_lines) {
      // The delay places the kill; nothing waits on it for correctness.
      std::this_thread::sleep_for(std::chrono::milliseconds(kill_at->delay_ms));
      kill(pid, SIGKILL);
      kill_sent = true;
    }
  }
  free(line);
  fclose(err);
  int wstatus = 0;
  REQUIRE(waitpid(pid, &wstatus, 0) == pid);
  a.killed = WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL;
  if (WIFEXITED(wstatus)) a.exit_code = WEXITSTATUS(wstatus);
  std::ifstream out(stdout_file);
  a.stdout_text.assign(std::istreambuf_iterator<char>(out), std::istreambuf_iterator<char>());
  return a;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const std::string& l : lines) s += l;
  return s;
}

// The step an "[eval]" line reports, "<op> <n>/<budget>" (n = 0 is the baseline); empty for the
// other progress lines. Each line is printed after its step was persisted.
std::string eval_step(const std::string& line) {
  if (line.rfind("[eval]", 0) != 0) return "";
  std::istringstream in(line);
  std::string tag, op, round_word, round, stage_word, stage, progress;
  in >> tag >> op >> round_word >> round >> stage_word >> stage >> progress;
  return op + " " + progress;
}

// What a campaign has persisted in its database.
struct persisted {
  std::map<std::string, nlohmann::json> episodes;                        // by op
  std::map<std::string, std::map<uint64_t, nlohmann::json>> candidates;  // by op, seq

  size_t steps() const {
    size_t n = 0;
    for (const auto& [op, records] : candidates) n += records.size();
    return n;
  }
  // "<op>#<seq>" of the steps whose evaluation ran on the device (not answered from the cache).
  std::set<std::string> device_evaluated() const {
    std::set<std::string> out;
    for (const auto& [op, records] : candidates) {
      for (const auto& [seq, r] : records) {
        if (!r.at("result").at("from_cache").get<bool>())
          out.insert(op + "#" + std::to_string(seq));
      }
    }
    return out;
  }
};

persisted read_db(const fs::path& db, const std::string& campaign) {
  auto store = aopt::storage::store::open(db);
  REQUIRE_MESSAGE(store.ok(), store.error().to_string());
  auto episodes = (*store)->list_episodes(campaign);
  REQUIRE_MESSAGE(episodes.ok(), episodes.error().to_string());
  persisted p;
  for (const aopt::storage::keyed_value& kv : *episodes) {
    p.episodes[kv.key] = kv.value;
    auto records = (*store)->list_candidates(campaign, kv.key);
    REQUIRE_MESSAGE(records.ok(), records.error().to_string());
    for (const aopt::storage::candidate_record& r : *records) p.candidates[kv.key][r.seq] = r.value;
  }
  return p;
}

// The parts of a candidate that depend on the search, not on how long the host took.
nlohmann::json search_view(const nlohmann::json& candidate) {
  nlohmann::json v = candidate;
  const nlohmann::json& r = candidate.at("result");
  v["result"] = {{"status", r.at("status")}, {"latency_us", r.at("latency_us")}};
  return v;
}

// The episode state without the campaign id (derived from the database path) and the timings.
nlohmann::json state_view(const nlohmann::json& episode) {
  nlohmann::json v = episode;
  v.erase("campaign");
  v["best_result"] = search_view({{"result", episode.at("best_result")}}).at("result");
  v["baseline_result"] = search_view({{"result", episode.at("baseline_result")}}).at("result");
  return v;
}

// The campaign id `aopt status --json` lists for `db` (the only campaign there).
std::string campaign_in(const fs::path& db) {
  aopt::subprocess_options options;
  options.argv = {AOPT_BINARY, "status", "--db", db.string(), "--json"};
  options.limits.wall_seconds = 60;
  auto run = aopt::run_subprocess(options);
  REQUIRE_MESSAGE(run.ok(), run.error().to_string());
  REQUIRE_MESSAGE(run->succeeded(), (run->describe() + "\n" + run->stderr_text));
  const nlohmann::json campaigns = nlohmann::json::parse(run->stdout_text);
  REQUIRE(campaigns.size() == 1);
  CHECK(campaigns[0].at("status") == "running");
  return campaigns[0].at("campaign").get<std::string>();
}

}  // namespace

TEST_CASE("a campaign killed with SIGKILL at random points resumes to the uninterrupted result") {
  aopt::testing::temp_dir dir;
  const attempt reference_run = run_attempt(
      run_args(dir.path() / "reference-db", dir.path() / "reports"), dir.path() / "out", {});
  REQUIRE_MESSAGE(reference_run.exit_code == 0, joined(reference_run.lines));
  const nlohmann::json reference = nlohmann::json::parse(reference_run.stdout_text);
  const persisted reference_db =
      read_db(dir.path() / "reference-db", reference.at("campaign").get<std::string>());
  REQUIRE(reference.at("operators").size() == 2);
  const size_t reference_steps = reference_db.steps();
  // Each step (the baselines included) is one evaluation job: nothing repeats in one run.
  REQUIRE(reference_steps == 2 * (budget + 1));
  const nlohmann::json& reference_pool = reference.at("pool");
  REQUIRE(reference_pool.at("evaluated").get<size_t>() +
              reference_pool.at("cache_hits").get<size_t>() ==
          reference_steps);
  const uint64_t slots = reference_pool.at("slots").get<uint64_t>();

  // The first kill lands right after the first "[start]" line, long before a baseline (a g++
  // build and a simulated run, seconds) can have completed; the others 0 to 1500 ms after the
  // 1st to 6th progress line of the attempt ("[start]" and "[done]" lines included): mostly
  // inside an evaluation, at different depths of the campaign.
  std::mt19937 rng(20261122);
  std::vector<kill_point> plan = {{1, 0}};
  for (int i = 0; i < 3; ++i) {
    plan.push_back({std::uniform_int_distribution<size_t>(1, 6)(rng),
                    std::uniform_int_distribution<int>(0, 1500)(rng)});
  }
  std::string points;
  for (const kill_point& p : plan) {
    points +=
        " (" + std::to_string(p.after_lines) + " lines + " + std::to_string(p.delay_ms) + " ms)";
  }
  MESSAGE("kill points:" << points);

  const fs::path db = dir.path() / "db";
  std::string campaign;
  std::vector<attempt> attempts;
  size_t kills = 0, resumes = 0;
  // Device evaluations the killed attempts completed and persisted (new "<op>#<seq>" records
  // that did not come from the cache). A killed attempt prints no JSON; the evaluations it had
  // in flight (at most one per device slot) are lost with it and are the only ones a later
  // attempt may repeat.
  uint64_t killed_device_evaluations = 0;
  std::set<std::string> device_evaluated_before;
  std::optional<nlohmann::json> final_summary;
  size_t steps_before_final = 0;
  for (size_t i = 0;; ++i) {
    // Attempt 0 starts the campaign; the continuations alternate `aopt resume <campaign>` and
    // the same `aopt run` command; the one that runs to the end is a resume.
    const bool resume = i % 2 == 1 || i == plan.size();
    const std::vector<std::string> argv =
        resume ? resume_args(db, campaign) : run_args(db, dir.path() / "reports");
    if (i > 0) steps_before_final = read_db(db, campaign).steps();
    std::optional<kill_point> kill_at;
    if (i < plan.size()) kill_at = plan[i];
    attempts.push_back(run_attempt(argv, dir.path() / "out", kill_at));
    const attempt& a = attempts.back();
    resumes += resume ? 1 : 0;
    if (!a.killed) {
      const std::string how = resume ? "aopt resume" : "aopt run";
      INFO("attempt " << i << " (" << how << ")\n" << joined(a.lines));
      REQUIRE(a.exit_code == 0);
      final_summary = nlohmann::json::parse(a.stdout_text);
      break;
    }
    ++kills;
    if (i == 0) {
      campaign = campaign_in(db);
      INFO(joined(a.lines));
      CHECK(read_db(db, campaign).steps() == 0);
    }
    const std::set<std::string> now = read_db(db, campaign).device_evaluated();
    for (const std::string& step : now) {
      if (!device_evaluated_before.count(step)) ++killed_device_evaluations;
    }
    device_evaluated_before = now;
  }
  MESSAGE(kills << " kills, " << resumes << " resumes, " << attempts.size() << " attempts");
  CHECK(kills >= 3);
  const nlohmann::json& resumed = *final_summary;

  {
    // The final results equal the uninterrupted run's.
    REQUIRE(resumed.at("operators").size() == reference.at("operators").size());
    for (size_t i = 0; i < reference.at("operators").size(); ++i) {
      const nlohmann::json& expected = reference.at("operators")[i];
      const nlohmann::json& actual = resumed.at("operators")[i];
      INFO("operator " << expected.at("name").get<std::string>());
      CHECK(actual == expected);
    }
    CHECK(resumed.at("evaluations") == reference.at("evaluations"));
    CHECK(resumed.at("geomean_speedup") == reference.at("geomean_speedup"));
    CHECK(resumed.at("trajectories") == reference.at("trajectories"));

    // The persisted search is the same step for step, down to the best sources.
    const persisted actual_db = read_db(db, campaign);
    REQUIRE(actual_db.episodes.size() == reference_db.episodes.size());
    for (const auto& [op, episode] : reference_db.episodes) {
      INFO("operator " << op);
      CHECK(state_view(actual_db.episodes.at(op)) == state_view(episode));
      const auto& expected = reference_db.candidates.at(op);
      const auto& actual = actual_db.candidates.at(op);
      REQUIRE(actual.size() == expected.size());
      for (const auto& [seq, record] : expected) {
        INFO("candidate " << seq);
        CHECK(search_view(actual.at(seq)) == search_view(record));
      }
    }
  }

  {
    // Completed evaluations are not redone.
    // Every "[eval]" line is printed after its step was persisted: a step printed by two
    // attempts was redone. (A step persisted just before a kill may go unprinted; then no line.)
    std::map<std::string, int> printed;
    for (const attempt& a : attempts) {
      for (const std::string& line : a.lines) {
        if (std::string step = eval_step(line); !step.empty()) printed[step]++;
      }
    }
    for (const auto& [step, times] : printed) {
      INFO("step " << step);
      CHECK(times == 1);
    }
    // The run that finished did exactly the steps that were not persisted before it.
    const nlohmann::json& pool = resumed.at("pool");
    const uint64_t final_device = pool.at("evaluated").get<uint64_t>();
    CHECK(final_device + pool.at("cache_hits").get<uint64_t>() ==
          reference_steps - steps_before_final);
    // Over all attempts the device repeated at most what was in flight at each kill.
    MESSAGE("device evaluations: "
            << killed_device_evaluations << " persisted by killed attempts + " << final_device
            << " by the last; uninterrupted " << reference_pool.at("evaluated"));
    CHECK(killed_device_evaluations + final_device <=
          reference_pool.at("evaluated").get<uint64_t>() + kills * slots);
  }
}
