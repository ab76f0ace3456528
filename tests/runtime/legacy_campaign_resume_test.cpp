// Issue 31 item 5: a database written before campaign ids hashed only non-default settings
// resumes after the change. tests/data/legacy_campaign_db was written by aopt 52696b3
// (tests/data/legacy_campaign_db.md says how); the same command finds that campaign again.
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
  package_at_recorded_path() {
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
  const fs::path root_ = "/tmp/aopt-legacy-resume";
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
