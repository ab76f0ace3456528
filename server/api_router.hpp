// The HTTP API of `aopt serve` as one function from a parsed request to a response, without
// socket I/O (the http_server owns the sockets), so every route is tested without a network:
//
//   GET  /healthz                                   liveness, no token needed
//   GET  /metrics                                   Prometheus text
//   GET  /api/v1/campaigns                          list
//   POST /api/v1/campaigns                          create {"operators": [paths], "uploads": [ids]}
//   POST /api/v1/operators                          upload an operator package {"files": {...}}
//   GET  /api/v1/campaigns/{id}                     one campaign with per-operator results
//   POST /api/v1/campaigns/{id}/{pause|resume|cancel}
//   GET  /api/v1/campaigns/{id}/operators/{op}      trajectory, candidates, sources, diffs
//   GET  /api/v1/bank[?q=text&limit=n]              experience bank, searched by text
//   GET  /api/v1/bank/{id}                          one tuple
//   GET  /api/v1/events[?since=id&campaign=id]      server-sent events (the server streams)
//   GET  /, /<file>                                 the dashboard's static files
// docs/openapi.yaml documents the bodies. Errors are JSON {"error": reason} with a 4xx/5xx
// status chosen by one table (server/http_status_table.hpp).
//
// Thread-safety: handle() may run on many threads at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/beast/http.hpp>

#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "server/access_policy.hpp"
#include "server/campaign_manager.hpp"
#include "server/episode_summary_cache.hpp"
#include "server/event_hub.hpp"
#include "server/http_status_table.hpp"
#include "server/operator_uploads.hpp"
#include "server/path_roots.hpp"
#include "server/view_cache.hpp"
#include "storage/store.hpp"

namespace aopt::server {

using http_request = boost::beast::http::request<boost::beast::http::string_body>;
using http_response = boost::beast::http::response<boost::beast::http::string_body>;

// A request for the event stream, once it passed the checks.
struct sse_request {
  uint64_t since = 0;    // replay retained events with a larger id
  std::string campaign;  // "" = every campaign
};

struct routed {
  http_response response;  // the whole answer, or the stream's header for an SSE request
  std::optional<sse_request> stream;
};

// The configuration of a new campaign: the daemon's configuration with the request's
// "campaign.*" overrides ("section.key=value"). Errors: invalid_argument.
using campaign_config_loader =
    std::function<result<config::aopt_config>(const std::vector<std::string>& overrides)>;

struct api_context {
  storage::store* db = nullptr;           // must outlive the router
  campaign_manager* campaigns = nullptr;  // must outlive the router
  event_hub* hub = nullptr;               // must outlive the router
  access_policy access{""};
  path_roots roots{{}};
  operator_uploads uploads{""};  // "" folder = uploads refused
  campaign_config_loader load_config;
  std::filesystem::path web_dir;  // the dashboard's files
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

// A JSON error response {"error": message} with the status of `why`'s code.
http_response error_response(const status& why, unsigned version, bool keep_alive);
// A JSON error response {"error": reason} for a failure of the HTTP layer.
http_response error_response(request_failure failure, const std::string& reason, unsigned version,
                             bool keep_alive);

class api_router {
 public:
  explicit api_router(api_context context) : ctx_(std::move(context)) {}

  routed handle(const http_request& request) const;

 private:
  http_response dispatch(const http_request& request, std::optional<sse_request>& stream) const;
  http_response create_campaign(const http_request& request) const;
  http_response upload_operator(const http_request& request) const;
  http_response metrics(const http_request& request) const;
  http_response static_file(const http_request& request, const std::string& path) const;

  api_context ctx_;
  // Campaign views: 100 dashboards polling one campaign cost one RocksDB scan and one
  // serialization per change.
  mutable view_cache views_;
  mutable episode_summary_cache episodes_;
};

}  // namespace aopt::server
