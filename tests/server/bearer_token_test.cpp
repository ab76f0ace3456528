// The daemon's bearer token: taken from the environment or from server.token, the environment
// first, and kept out of everything that is printed or stored.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>

#include <fstream>

#include "config/aopt_config.hpp"
#include "daemon_process.hpp"
#include "server/bearer_token.hpp"
#include "server/http_client.hpp"
#include "support/temp_dir.hpp"

namespace {

using aopt::server::resolve_bearer_token;

aopt::config::server_config with_token(const std::string& token) {
  aopt::config::server_config c;
  c.token = token;
  return c;
}

}  // namespace

TEST_CASE("the token variable wins over server.token, which is the fallback") {
  const auto from_env = resolve_bearer_token(with_token("file-tok"), "env-tok");
  CHECK(from_env.value == "env-tok");
  CHECK(from_env.origin == "$AOPT_TOKEN");
  for (const char* unset : {static_cast<const char*>(nullptr), ""}) {
    const auto from_file = resolve_bearer_token(with_token("file-tok"), unset);
    CHECK(from_file.value == "file-tok");
    CHECK(from_file.origin == "server.token");
  }
  const auto none = resolve_bearer_token(with_token(""), nullptr);
  CHECK(none.value.empty());
  CHECK(none.origin.empty());
}

TEST_CASE("server.token loads from a config file but stays out of the JSON form and errors") {
  aopt::testing::temp_dir dir;
  const auto file = dir.path() / "aopt.toml";
  std::ofstream(file) << "[server]\ntoken = \"file-secret-42\"\n";
  auto c = aopt::config::load_config(file, {});
  REQUIRE_MESSAGE(c.ok(), c.error().to_string());
  CHECK(c->server.token == "file-secret-42");
  // The JSON form goes into campaign records and campaign ids.
  CHECK(aopt::config::to_json(*c).dump().find("file-secret-42") == std::string::npos);
  CHECK(*c != aopt::config::aopt_config{});

  std::ofstream(file) << "[server]\ntoken = 4242424242\n";
  auto wrong = aopt::config::load_config(file, {});
  REQUIRE(!wrong.ok());
  CHECK(wrong.error().message() == "config: server.token: expected a string");
}

TEST_CASE("aopt serve takes its token from server.token and never prints it") {
  aopt::testing::temp_dir dir;
  const auto file = dir.path() / "aopt.toml";
  std::ofstream(file) << "[server]\ntoken = \"file-tok-777\"\n";
  const std::vector<std::string> args = {
      "--listen", "0.0.0.0:0", "--db", (dir.path() / "db").string(), "--config", file.string()};
  // An empty variable counts as unset, so the file's token applies.
  aopt::testing::daemon_process guarded(args, {"AOPT_TOKEN="});
  REQUIRE(guarded.wait_ready());
  for (const std::string& line : guarded.startup_lines()) {
    INFO(line);
    CHECK(line.find("file-tok-777") == std::string::npos);
  }
  auto url = aopt::server::parse_server_url(guarded.url());
  REQUIRE(url.ok());
  auto missing = aopt::server::http_call(*url, "GET", "/api/v1/campaigns", "", "");
  REQUIRE(missing.ok());
  CHECK(missing->status == 401);
  auto right = aopt::server::http_call(*url, "GET", "/api/v1/campaigns", "", "file-tok-777");
  REQUIRE(right.ok());
  CHECK(right->status == 200);
  guarded.signal(SIGTERM);
  CHECK(WIFEXITED(guarded.wait()));

  // A non-empty variable overrides the file.
  aopt::testing::daemon_process overridden(args, {"AOPT_TOKEN=env-tok-888"});
  REQUIRE(overridden.wait_ready());
  auto env_url = aopt::server::parse_server_url(overridden.url());
  REQUIRE(env_url.ok());
  auto refused = aopt::server::http_call(*env_url, "GET", "/api/v1/campaigns", "", "file-tok-777");
  REQUIRE(refused.ok());
  CHECK(refused->status == 401);
  auto admitted = aopt::server::http_call(*env_url, "GET", "/api/v1/campaigns", "", "env-tok-888");
  REQUIRE(admitted.ok());
  CHECK(admitted->status == 200);
  overridden.signal(SIGTERM);
  CHECK(WIFEXITED(overridden.wait()));
}
