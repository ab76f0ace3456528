// A daemon's parts without the process, for the server's tests: store, hub, campaigns, router and
// HTTP server on a loopback port, with helpers to call it through the real HTTP client or with
// raw bytes.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "server/api_router.hpp"
#include "server/http_client.hpp"
#include "server/http_server.hpp"
#include "support/temp_dir.hpp"

namespace aopt::testing {

// The corpus of the source tree, the fixture's only root.
std::string corpus_dir();

struct server_fixture_options {
  std::string token;
  std::vector<std::filesystem::path> roots = {corpus_dir()};
  bool uploads = false;  // accept uploaded packages (in the fixture's folder)
  server::session_limits limits = [] {
    server::session_limits l;
    l.max_body_bytes = 1024;
    l.max_header_bytes = 2048;
    return l;
  }();
};

struct server_fixture {
  explicit server_fixture(server_fixture_options options = {});
  explicit server_fixture(const std::string& token);
  ~server_fixture();

  // A request through the HTTP client; fails the test when the call itself fails.
  server::client_response call(const std::string& method, const std::string& target,
                               const std::string& body = "", const std::string& bearer = "");
  // Sends raw bytes and returns everything the server answered until it closed.
  std::string raw(const std::string& bytes);

  temp_dir dir;
  std::unique_ptr<storage::store> db;
  std::shared_ptr<server::event_hub> hub;
  std::unique_ptr<server::campaign_manager> campaigns;
  std::unique_ptr<server::api_router> router;
  std::unique_ptr<server::http_server> http;
  server::server_url url;
};

}  // namespace aopt::testing
