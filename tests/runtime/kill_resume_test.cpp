// Kills a real `aopt run` process with SIGKILL at several points (after the k-th evaluated
// candidate it reports), runs the same command again until it completes, and checks that the
// final per-operator results equal those of an uninterrupted run with the same seed.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<std::string> run_args(const fs::path& db, const fs::path& reports) {
  return {AOPT_BINARY,
          "run",
          std::string(AOPT_SOURCE_DIR) + "/corpus/level1/add_custom",
          std::string(AOPT_SOURCE_DIR) + "/corpus/level1/relu_custom",
          "--db",
          db.string(),
          "--report",
          reports.string(),
          "--budget",
          "6",
          "--rounds",
          "2",
          "--jobs",
          "2",
          "--seed",
          "11",
          "--json"};
}

// Runs the command to completion and returns its JSON summary.
nlohmann::json run_to_end(const std::vector<std::string>& argv) {
  aopt::subprocess_options options;
  options.argv = argv;
  options.limits.wall_seconds = 600;
  auto run = aopt::run_subprocess(options);
  REQUIRE_MESSAGE(run.ok(), run.error().to_string());
  REQUIRE_MESSAGE(run->succeeded(), (run->describe() + "\n" + run->stderr_text));
  return nlohmann::json::parse(run->stdout_text);
}

// Starts the command, reads its progress lines from stderr and SIGKILLs it right after the
// `kill_after`-th "[eval]" line. Returns the number of "[eval]" lines seen (fewer when the run
// ended first).
int run_and_kill(const std::vector<std::string>& argv, int kill_after) {
  int err_pipe[2];
  REQUIRE(pipe2(err_pipe, O_CLOEXEC) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(err_pipe[1], STDERR_FILENO);
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, STDOUT_FILENO);
    std::vector<char*> cargs;
    for (const std::string& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
    cargs.push_back(nullptr);
    execv(cargs[0], cargs.data());
    _exit(127);
  }
  close(err_pipe[1]);
  FILE* err = fdopen(err_pipe[0], "r");
  REQUIRE(err != nullptr);
  int evals = 0;
  char* line = nullptr;
  size_t capacity = 0;
  while (getline(&line, &capacity, err) > 0) {
    if (std::string(line).rfind("[eval]", 0) == 0 && ++evals == kill_after) {
      kill(pid, SIGKILL);
      break;
    }
  }
  free(line);
  fclose(err);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  return evals;
}

struct op_result {
  std::string name;
  double best_us = 0;
  int evaluations = 0;
  bool operator==(const op_result& o) const {
    return name == o.name && best_us == o.best_us && evaluations == o.evaluations;
  }
};

std::vector<op_result> results_of(const nlohmann::json& summary) {
  std::vector<op_result> out;
  for (const auto& op : summary.at("operators")) {
    out.push_back({op.at("name"), op.at("best_us"), op.at("evaluations")});
  }
  return out;
}

}  // namespace

TEST_CASE("a campaign killed with SIGKILL at random points resumes to the uninterrupted result") {
  aopt::testing::temp_dir dir;
  const nlohmann::json reference =
      run_to_end(run_args(dir.path() / "reference-db", dir.path() / "reports"));
  const std::vector<op_result> expected = results_of(reference);
  REQUIRE(expected.size() == 2);
  const int total_evals = reference.at("evaluations").get<int>();
  REQUIRE(total_evals >= 6);

  std::mt19937 rng(20261122);
  const std::vector<std::string> argv = run_args(dir.path() / "db", dir.path() / "reports");
  int kills = 0;
  // Each interrupted run gets further, since persisted work is not redone.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int kill_after = std::uniform_int_distribution<int>(1, 3)(rng);
    if (run_and_kill(argv, kill_after) == kill_after) ++kills;
  }
  CHECK(kills >= 1);

  const nlohmann::json resumed = run_to_end(argv);
  const std::vector<op_result> actual = results_of(resumed);
  REQUIRE(actual.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("operator " << expected[i].name);
    CHECK(actual[i].name == expected[i].name);
    CHECK(actual[i].best_us == doctest::Approx(expected[i].best_us).epsilon(1e-12));
    CHECK(actual[i].evaluations == expected[i].evaluations);
  }
  CHECK(resumed.at("geomean_speedup").get<double>() ==
        doctest::Approx(reference.at("geomean_speedup").get<double>()).epsilon(1e-12));
}
