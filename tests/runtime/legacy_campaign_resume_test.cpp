// Issue 31 item 5: databases written by earlier versions resume with the current aopt.
// tests/data/legacy_campaign_db was written by aopt 52696b3, before campaign ids hashed only
// non-default settings; tests/data/prehooks_campaign_db by aopt f595797, before the hooked roles,
// and killed (-9) in the middle of its campaign (tests/data/*.md say how). The same command finds
// each campaign again.
#include <filesystem>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

// The id hashes the operator's path, so the package sits where it sat when the database was
// written; the folder is removed again when the test ends.
class package_at_recorded_path {
 public:
  explicit package_at_recorded_path(fs::path root = "/tmp/aopt-legacy-resume") : root_(root) {
    fs::remove_all(root_);
    fs::create_directories(root_);
    fs::copy(fs::path(AOPT_SOURCE_DIR) / "corpus/level1/add_custom", dir(),
             fs::copy_options::recursive);
  }
  ~package_at_recorded_path() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  package_at_recorded_path(const package_at_recorded_path&) = delete;
  package_at_recorded_path& operator=(const package_at_recorded_path&) = delete;
  fs::path dir() const { return root_ / "add_custom"; }

 private:
  const fs::path root_;
};

}  // namespace

TEST_CASE("a campaign written by aopt 52696b3 is found again under its id and not redone") {
  const package_at_recorded_path package;
  aopt::testing::temp_dir work;
  fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "legacy_campaign_db", work.path() / "db");

  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY,
            "run",
            package.dir().string(),
            "--budget",
            "2",
            "--db",
            (work.path() / "db").string(),
            "--report",
            (work.path() / "reports").string(),
            "--json"};
  o.limits.wall_seconds = 300;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  REQUIRE_MESSAGE(r->exit_code == 0, (r->stdout_text + r->stderr_text));
  nlohmann::json summary;
  REQUIRE_NOTHROW(summary = nlohmann::json::parse(r->stdout_text));
  CHECK(summary.at("campaign") == "c-acabfd8640cf");
  const nlohmann::json& op = summary.at("operators").at(0);
  CHECK(op.at("name") == "add_custom");
  CHECK(op.at("phase") == "done");
  CHECK(op.at("evaluations") == 2);
  CHECK(op.at("best_us").get<double>() == doctest::Approx(48.503961904761915));
  // Nothing was evaluated again: the run only reported what the database held.
  CHECK_MESSAGE(r->stderr_text.find("[eval]") == std::string::npos, r->stderr_text);
}

namespace {

nlohmann::json run_add_custom(const fs::path& package, const fs::path& db, const fs::path& reports,
                              std::string& log) {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY, "run",       package.string(), "--budget",       "6",     "--jobs", "1",
            "--db",      db.string(), "--report",       reports.string(), "--json"};
  o.limits.wall_seconds = 300;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  REQUIRE_MESSAGE(r->exit_code == 0, (r->stdout_text + r->stderr_text));
  log = r->stderr_text;
  nlohmann::json summary;
  REQUIRE_NOTHROW(summary = nlohmann::json::parse(r->stdout_text));
  return summary;
}

size_t evaluations_logged(const std::string& log) {
  size_t n = 0;
  for (size_t at = log.find("[eval]"); at != std::string::npos; at = log.find("[eval]", at + 1)) {
    ++n;
  }
  return n;
}

}  // namespace

TEST_CASE(
    "a campaign interrupted under aopt f595797 resumes to the result of an uninterrupted run") {
  const package_at_recorded_path package("/tmp/aopt-prehooks-resume");
  aopt::testing::temp_dir work;
  fs::copy(fs::path(AOPT_TEST_DATA_DIR) / "prehooks_campaign_db", work.path() / "db");
  std::string resumed_log, fresh_log;
  const nlohmann::json resumed =
      run_add_custom(package.dir(), work.path() / "db", work.path() / "r1", resumed_log);
  const nlohmann::json fresh =
      run_add_custom(package.dir(), work.path() / "fresh", work.path() / "r2", fresh_log);
  CHECK(resumed.at("campaign") == "c-1766ec28f13c");
  CHECK(resumed.at("campaign") == fresh.at("campaign"));
  const nlohmann::json& a = resumed.at("operators").at(0);
  const nlohmann::json& b = fresh.at("operators").at(0);
  CHECK(a.at("phase") == "done");
  CHECK(a.at("evaluations") == 6);
  CHECK(a.at("best_us").get<double>() == doctest::Approx(b.at("best_us").get<double>()));
  // The two candidates the database held were not evaluated again.
  CHECK(evaluations_logged(fresh_log) == 7);
  CHECK_MESSAGE(evaluations_logged(resumed_log) == 4, resumed_log);
}
