// `aopt bank build` end to end (the CLI drives the Rewinder actor): a second build of the same
// experts into the same database rewinds nothing, adds nothing and leaves the counters as they
// were; --force rewinds again without counting twice.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path expert = fs::path(AOPT_SOURCE_DIR) / "corpus/experts/hardswish_custom";

aopt::subprocess_result run_aopt(const fs::path& db, std::vector<std::string> args) {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.argv.insert(o.argv.end(), {"--db", db.string()});
  o.limits.wall_seconds = 300;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

nlohmann::json stats(const fs::path& db) {
  aopt::subprocess_result r = run_aopt(db, {"bank", "stats", "--json"});
  REQUIRE_MESSAGE(r.succeeded(), r.describe() << "\n" << r.stderr_text);
  return nlohmann::json::parse(r.stdout_text);
}

}  // namespace

TEST_CASE("a repeated bank build skips rewound experts and leaves the bank and counts unchanged") {
  aopt::testing::temp_dir dir;
  const fs::path db = dir.path() / "db";
  aopt::subprocess_result first = run_aopt(db, {"bank", "build", expert.string()});
  REQUIRE_MESSAGE(first.succeeded(), first.describe() << "\n" << first.stderr_text);
  CHECK(first.stdout_text.find("hardswish_custom: expert") != std::string::npos);
  const nlohmann::json built = stats(db);
  REQUIRE(built["trajectories"] == 1);
  REQUIRE(built["tuples"].get<uint64_t>() > 0);
  CHECK(built["pairs_kept"].get<uint64_t>() > 0);

  aopt::subprocess_result second = run_aopt(db, {"bank", "build", expert.string()});
  REQUIRE_MESSAGE(second.succeeded(), second.describe() << "\n" << second.stderr_text);
  CHECK(second.stdout_text.find("hardswish_custom: already rewound, skipped") != std::string::npos);
  CHECK(second.stdout_text.find("tuples added 0") != std::string::npos);
  CHECK(stats(db) == built);

  aopt::subprocess_result forced = run_aopt(db, {"bank", "build", expert.string(), "--force"});
  REQUIRE_MESSAGE(forced.succeeded(), forced.describe() << "\n" << forced.stderr_text);
  CHECK(forced.stdout_text.find("hardswish_custom: expert") != std::string::npos);
  CHECK(forced.stdout_text.find("tuples added 0") != std::string::npos);
  CHECK(stats(db) == built);
}
