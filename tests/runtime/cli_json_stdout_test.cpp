// `--json` keeps stdout to exactly one JSON document for every command, failures included, and
// numbers the CLI refuses read as sentences (issue 34 item 7). Runs the real binary.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path json_ops_dir = fs::path(AOPT_TEST_DATA_DIR) / "ops";

aopt::subprocess_result run_aopt_json(const std::vector<std::string>& args) {
  aopt::subprocess_options o;
  o.argv = {AOPT_BINARY};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.limits.wall_seconds = 300;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

// stdout is one JSON document (parse throws on anything before or after it).
nlohmann::json one_document(const aopt::subprocess_result& r) {
  nlohmann::json j;
  REQUIRE_NOTHROW_MESSAGE(j = nlohmann::json::parse(r.stdout_text),
                          ("stdout: " + r.stdout_text + "\nstderr: " + r.stderr_text));
  return j;
}

}  // namespace

TEST_SUITE("runtime") {
  TEST_CASE("aopt eval --json on a missing package prints one JSON error document") {
    const auto r = run_aopt_json({"eval", "/nonexistent-aopt-package", "--json"});
    CHECK(r.exit_code == 2);
    const nlohmann::json j = one_document(r);
    CHECK(j.at("ok") == false);
    CHECK(j.at("exit_code") == 2);
    CHECK(j.at("error").get<std::string>().find("/nonexistent-aopt-package") != std::string::npos);
    CHECK(r.stderr_text.find("/nonexistent-aopt-package") != std::string::npos);
  }

  TEST_CASE("--json answers a parse error, an unknown option and an unknown command in JSON") {
    for (const std::vector<std::string>& args :
         std::vector<std::vector<std::string>>{{"run", "x", "--budget", "-3", "--json"},
                                               {"eval", "--no-such-flag", "--json"},
                                               {"no-such-command", "--json"},
                                               {"llm", "--json"}}) {
      CAPTURE(args.front());
      const auto r = run_aopt_json(args);
      CHECK(r.exit_code != 0);
      const nlohmann::json j = one_document(r);
      CHECK(j.at("ok") == false);
      CHECK(!j.at("error").get<std::string>().empty());
    }
  }

  TEST_CASE("every command's failure under --json is one JSON document with its own reason") {
    aopt::testing::temp_dir dir;
    const std::string db = (dir.path() / "db").string();
    const std::string missing = (dir.path() / "missing").string();
    const std::string unreachable = "http://127.0.0.1:1";  // nothing listens on port 1
    struct failing {
      std::vector<std::string> args;
      int exit_code;
      std::string reason;  // in the document's error, as on stderr
    };
    const std::vector<failing> cases = {
        {{"corpus", "list", missing, "--no-latency"}, 2, "not a directory"},
        {{"init", missing}, 2, "not an operator directory"},
        {{"run", missing, "--db", db}, 2, "no such file or directory"},
        {{"report", "c-none", "--db", db}, 2, "no database there"},
        {{"resume", "c-none", "--db", db}, 2, "no campaign 'c-none'"},
        {{"status", "--server", unreachable}, 1, "cannot reach the daemon"},
        {{"resume", "c-none", "--server", unreachable}, 1, "cannot reach the daemon"},
        {{"submit", missing, "--server", unreachable}, 1, "cannot reach the daemon"}};
    for (const failing& c : cases) {
      std::vector<std::string> args = c.args;
      args.push_back("--json");
      CAPTURE(args.front());
      CAPTURE(args.back());
      const auto r = run_aopt_json(args);
      CHECK(r.exit_code == c.exit_code);
      const nlohmann::json j = one_document(r);
      CHECK(j.at("ok") == false);
      CHECK(j.at("exit_code") == c.exit_code);
      const std::string error = j.at("error").get<std::string>();
      CHECK_MESSAGE(error.find(c.reason) != std::string::npos, error);
      CHECK(r.stderr_text.find(c.reason) != std::string::npos);
    }
  }

  TEST_CASE("a refused number reads as a sentence, without CLI11's 309-digit bound") {
    const auto r = run_aopt_json({"run", "x", "--budget", "-3"});
    CHECK(r.exit_code == 2);
    CHECK(r.stderr_text.find("'-3' is not a whole number of 0 or more") != std::string::npos);
    CHECK(r.stderr_text.find("1797693") == std::string::npos);
    CHECK(r.stdout_text.find("1797693") == std::string::npos);
  }

  TEST_CASE("aopt eval --json on the cann device keeps its log warnings off stdout") {
    // Every cann command fails at once: the build fails; stdout is still the one result
    // document, whatever the device logged on stderr.
    aopt::testing::temp_dir dir;
    const fs::path config = dir.path() / "aopt.toml";
    std::ofstream(config) << "[device]\nkind = \"cann\"\n[cann]\nbuild = \"false\"\n"
                             "run = \"false\"\nprofile = \"false\"\ninstall = \"\"\n"
                             "cann_version = \"false\"\ndriver_version = \"false\"\n";
    const auto r = run_aopt_json(
        {"eval", (json_ops_dir / "add_tiled").string(), "--json", "--config", config.string()});
    const nlohmann::json j = one_document(r);
    CHECK_MESSAGE(j.contains("status"), r.stderr_text);
    CHECK(j.at("device") == "cann");
  }

  TEST_CASE("aopt eval --json on a good package is the result alone") {
    const auto r = run_aopt_json({"eval", (json_ops_dir / "add_tiled").string(), "--json"});
    CHECK(r.exit_code == 0);
    const nlohmann::json j = one_document(r);
    CHECK(j.at("status") == "ok");
  }
}
