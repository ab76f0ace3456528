#include "server/api_router.hpp"

#include <fstream>
#include <regex>
#include <sstream>

#include "base/utf8.hpp"
#include "llm/token_ledger_json.hpp"
#include "npu/op_package.hpp"
#include "runtime/campaign_runner.hpp"
#include "runtime/workers_json.hpp"
#include "server/campaign_views.hpp"
#include "server/metrics.hpp"
#include "server/url.hpp"

namespace aopt::server {
namespace http = boost::beast::http;
namespace fs = std::filesystem;

namespace {

constexpr size_t max_operators_per_request = 1000;
constexpr size_t default_bank_limit = 50;

// `body`: JSON text.
http_response json_text_response(http::status code, std::string body, unsigned version,
                                 bool keep_alive) {
  http_response res{code, version};
  res.set(http::field::content_type, "application/json");
  res.set(http::field::cache_control, "no-store");
  res.keep_alive(keep_alive);
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

http_response json_response(http::status code, const nlohmann::json& body, unsigned version,
                            bool keep_alive) {
  return json_text_response(code, dump_json(body), version, keep_alive);
}

result<nlohmann::json> parse_json_body(const http_request& req) {
  try {
    return nlohmann::json::parse(req.body());
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1e999
    return invalid_argument(std::string("malformed JSON: ") + e.what());
  }
}

bool valid_campaign_id(const std::string& id) {
  static const std::regex pattern("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
  return std::regex_match(id, pattern);
}

// The keys of a create request that map to "campaign.<key>" overrides.
const std::vector<std::string>& campaign_keys() {
  static const std::vector<std::string> keys = {"budget",       "rounds",         "jobs",
                                                "seed",         "strategy",       "stage1_steps",
                                                "stage2_steps", "stage2_adaptive"};
  return keys;
}

std::string override_value(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

const char* content_type_of(const fs::path& p) {
  const std::string ext = p.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".js") return "text/javascript; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace

http_response error_response(const status& why, unsigned version, bool keep_alive) {
  return json_response(http_status_of(why.code()), {{"error", why.message()}}, version, keep_alive);
}

http_response error_response(request_failure failure, const std::string& reason, unsigned version,
                             bool keep_alive) {
  return json_response(http_status_of(failure), {{"error", reason}}, version, keep_alive);
}

routed api_router::handle(const http_request& request) const {
  routed out;
  // Nothing a request does may take the daemon down: what escapes a route is a 500 naming it.
  try {
    out.response = dispatch(request, out.stream);
  } catch (const std::exception& e) {
    out.stream.reset();
    out.response = error_response(internal_error(std::string("internal error: ") + e.what()),
                                  request.version(), false);
  }
  return out;
}

http_response api_router::dispatch(const http_request& req,
                                   std::optional<sse_request>& stream) const {
  const unsigned v = req.version();
  const bool ka = req.keep_alive();
  const auto fail = [&](const status& s) { return error_response(s, v, ka); };
  const auto ok = [&](const nlohmann::json& body) {
    return json_response(http::status::ok, body, v, ka);
  };
  result<request_target> target =
      parse_target(std::string_view(req.target().data(), req.target().size()));
  if (!target.ok()) return fail(target.error());
  const std::vector<std::string>& seg = target->segments;
  const bool get = req.method() == http::verb::get;
  const bool post = req.method() == http::verb::post;
  const auto method_not_allowed = [&] {
    return error_response(
        request_failure::method_not_allowed,
        std::string(req.method_string()) + " is not allowed on " + std::string(req.target()), v,
        ka);
  };

  if (seg.size() == 1 && seg[0] == "healthz") {
    if (!get) return method_not_allowed();
    return ok({{"status", "ok"}, {"campaigns_running", ctx_.campaigns->running_count()}});
  }
  const bool api = seg.size() >= 2 && seg[0] == "api" && seg[1] == "v1";
  const bool is_metrics = seg.size() == 1 && seg[0] == "metrics";
  if (!api && !is_metrics) {
    if (!get) return method_not_allowed();
    // The dashboard is one flat folder: a path below one of its files names nothing.
    if (seg.size() > 1) return fail(not_found("no such file"));
    // The dashboard's files carry no data; the data comes from the API, which checks the token.
    return static_file(req, seg.empty() ? "index.html" : seg[0]);
  }
  const auto authorization = req[http::field::authorization];
  if (!ctx_.access.admits(std::string_view(authorization.data(), authorization.size()))) {
    http_response res =
        error_response(request_failure::unauthenticated, "a valid bearer token is required", v, ka);
    res.set(http::field::www_authenticate, "Bearer");
    return res;
  }
  if (is_metrics) {
    if (!get) return method_not_allowed();
    return metrics(req);
  }
  const std::vector<std::string> rest(seg.begin() + 2, seg.end());
  if (rest.empty()) return fail(not_found("no such route: " + std::string(req.target())));
  const std::string& kind = rest[0];

  if (kind == "campaigns") {
    if (rest.size() == 1) {
      if (post) return create_campaign(req);
      if (!get) return method_not_allowed();
      result<view_cache::body> list =
          views_.get("", ctx_.hub->last_id(), [&]() -> result<nlohmann::json> {
            result<nlohmann::json> campaigns = campaign_list_view(*ctx_.db, episodes_);
            if (!campaigns.ok()) return campaigns.error();
            return nlohmann::json{{"campaigns", std::move(*campaigns)}};
          });
      return list.ok() ? json_text_response(http::status::ok, **list, v, ka) : fail(list.error());
    }
    const std::string& id = rest[1];
    if (rest.size() == 2) {
      if (!get) return method_not_allowed();
      // The campaign thread ends after its last event, so "running" can change while the
      // version does not: it is part of the key. Campaign ids never contain '/', so
      // "campaign/<id>/..." cannot collide with the list's key.
      const bool running = ctx_.campaigns->is_running(id);
      result<view_cache::body> view =
          views_.get("campaign/" + id + (running ? "/running" : "/stopped"),
                     ctx_.hub->campaign_version(id), [&]() -> result<nlohmann::json> {
                       result<nlohmann::json> body = campaign_view(*ctx_.db, id, episodes_);
                       if (body.ok()) (*body)["running"] = running;
                       return body;
                     });
      return view.ok() ? json_text_response(http::status::ok, **view, v, ka) : fail(view.error());
    }
    if (rest.size() == 3 && (rest[2] == "pause" || rest[2] == "resume" || rest[2] == "cancel")) {
      if (!post) return method_not_allowed();
      status done = rest[2] == "pause"    ? ctx_.campaigns->pause(id)
                    : rest[2] == "resume" ? ctx_.campaigns->resume(id)
                                          : ctx_.campaigns->cancel(id);
      if (!done.ok()) return fail(done);
      return json_response(
          http::status::accepted,
          {{"id", id}, {"action", rest[2]}, {"running", ctx_.campaigns->is_running(id)}}, v, ka);
    }
    if (rest.size() == 4 && rest[2] == "operators") {
      if (!get) return method_not_allowed();
      result<nlohmann::json> view = operator_view(*ctx_.db, id, rest[3]);
      return view.ok() ? ok(*view) : fail(view.error());
    }
  } else if (kind == "operators" && rest.size() == 1) {
    if (!post) return method_not_allowed();
    return upload_operator(req);
  } else if (kind == "workers" && rest.size() == 1) {
    if (!get) return method_not_allowed();
    const actors::pool_stats pool = ctx_.campaigns->pool_stats();
    nlohmann::json view = runtime::workers_json(pool);
    view["slots"] = pool.slots;
    view["in_flight"] = pool.in_flight;
    view["queued"] = pool.queued;
    return ok(view);
  } else if (kind == "bank") {
    if (!get) return method_not_allowed();
    if (rest.size() == 1) {
      size_t limit = default_bank_limit;
      if (auto it = target->query.find("limit"); it != target->query.end()) {
        if (it->second.empty() || it->second.size() > 6 ||
            it->second.find_first_not_of("0123456789") != std::string::npos) {
          return fail(invalid_argument("limit must be a number from 0 to 999999"));
        }
        limit = std::stoul(it->second);
      }
      const auto q = target->query.find("q");
      result<nlohmann::json> view =
          bank_view(*ctx_.db, q == target->query.end() ? "" : q->second, limit);
      return view.ok() ? ok(*view) : fail(view.error());
    }
    if (rest.size() == 2) {
      result<nlohmann::json> view = tuple_view(*ctx_.db, rest[1]);
      return view.ok() ? ok(*view) : fail(view.error());
    }
  } else if (kind == "events" && rest.size() == 1) {
    if (!get) return method_not_allowed();
    sse_request s;
    std::string since = std::string(req["Last-Event-ID"]);
    if (auto it = target->query.find("since"); it != target->query.end()) since = it->second;
    if (!since.empty()) {
      if (since.size() > 19 || since.find_first_not_of("0123456789") != std::string::npos) {
        return fail(invalid_argument("since / Last-Event-ID must be an event id (a number)"));
      }
      s.since = std::stoull(since);
    }
    if (auto it = target->query.find("campaign"); it != target->query.end()) {
      s.campaign = it->second;
    }
    stream = s;
    http_response res{http::status::ok, v};
    res.set(http::field::content_type, "text/event-stream");
    res.set(http::field::cache_control, "no-store");
    res.keep_alive(false);
    return res;
  }
  return fail(not_found("no such route: " + std::string(req.target())));
}

http_response api_router::create_campaign(const http_request& req) const {
  const unsigned v = req.version();
  const bool ka = req.keep_alive();
  const auto bad = [&](const std::string& why) {
    return error_response(invalid_argument(why), v, ka);
  };
  result<nlohmann::json> parsed = parse_json_body(req);
  if (!parsed.ok()) return bad(parsed.error().message());
  nlohmann::json& body = *parsed;
  if (!body.is_object()) return bad("the body must be a JSON object");
  for (const auto& [key, value] : body.items()) {
    const auto& keys = campaign_keys();
    if (key != "operators" && key != "uploads" && key != "campaign" && key != "set" &&
        std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return bad("unknown key '" + key + "'");
    }
  }
  for (const char* key : {"operators", "uploads"}) {
    if (body.contains(key) && !body[key].is_array()) {
      return bad(std::string("'") + key + "' must be an array");
    }
  }
  const nlohmann::json paths = body.value("operators", nlohmann::json::array());
  const nlohmann::json uploads = body.value("uploads", nlohmann::json::array());
  if (paths.empty() && uploads.empty()) {
    return bad("'operators' (paths) or 'uploads' (uploaded package ids) must name an operator");
  }
  if (paths.size() + uploads.size() > max_operators_per_request) {
    return bad("at most " + std::to_string(max_operators_per_request) + " operators per request");
  }
  std::vector<fs::path> inputs;
  for (const auto& p : paths) {
    if (!p.is_string() || p.get<std::string>().empty()) return bad("operator paths are strings");
    result<fs::path> confined = ctx_.roots.confine(p.get<std::string>());
    if (!confined.ok()) {
      return error_response(request_failure::forbidden, confined.error().message(), v, ka);
    }
    inputs.push_back(*confined);
  }
  // Uploaded packages live in the daemon's own folder, outside the roots; they are checked by id.
  std::vector<fs::path> uploaded;
  for (const auto& u : uploads) {
    if (!u.is_string()) return bad("upload ids are strings");
    result<fs::path> dir = ctx_.uploads.find(u.get<std::string>());
    if (!dir.ok()) return error_response(dir.error(), v, ka);
    inputs.push_back(*dir);
    uploaded.push_back(fs::weakly_canonical(*dir));
  }
  std::string id;
  if (body.contains("campaign")) {
    if (!body["campaign"].is_string() || !valid_campaign_id(body["campaign"])) {
      return bad("'campaign' must be 1-64 letters, digits, '.', '_' or '-'");
    }
    id = body["campaign"];
  }
  std::vector<std::string> overrides;
  for (const std::string& key : campaign_keys()) {
    if (body.contains(key))
      overrides.push_back("campaign." + key + "=" + override_value(body[key]));
  }
  if (body.contains("set")) {
    if (!body["set"].is_array()) return bad("'set' must be an array of \"campaign.key=value\"");
    for (const auto& s : body["set"]) {
      // Only the campaign section: device, storage and server settings belong to whoever runs
      // the daemon, not to its clients.
      if (!s.is_string() || s.get<std::string>().rfind("campaign.", 0) != 0) {
        return bad("'set' entries must be strings \"campaign.key=value\"");
      }
      overrides.push_back(s);
    }
  }
  result<config::aopt_config> cfg = ctx_.load_config(overrides);
  if (!cfg.ok()) return bad(cfg.error().message());
  result<std::vector<fs::path>> ops = runtime::discover_operators(inputs);
  if (!ops.ok()) return bad(ops.error().message());
  for (const fs::path& op : *ops) {
    // Discovery follows links inside a folder; each operator found must still be inside a root.
    if (!ctx_.roots.contains(op) &&
        std::find(uploaded.begin(), uploaded.end(), op) == uploaded.end()) {
      return error_response(request_failure::forbidden,
                            op.string() + ": outside the folders this daemon may read", v, ka);
    }
    // Every file of the package must load, so a campaign never starts on a package it cannot
    // read. A file linking out of the package is refused like a path outside the roots: 403.
    result<npu::op_package> package = npu::load_op_package(op);
    if (!package.ok()) {
      const status& why = package.error();
      if (why.code() == status_code::failed_precondition)
        return error_response(request_failure::forbidden, why.message(), v, ka);
      return error_response(why, v, ka);
    }
    // Its include folders are read like its files: inside a root.
    for (const fs::path& folder : package->include_dirs) {
      if (!ctx_.roots.confine(folder).ok()) {
        return error_response(request_failure::forbidden,
                              op.string() + ": include folder " + folder.string() +
                                  " is outside the folders this daemon may read",
                              v, ka);
      }
    }
  }
  result<std::string> created = ctx_.campaigns->create(id, *ops, *cfg);
  if (!created.ok()) return error_response(created.error(), v, ka);
  http_response res =
      json_response(http::status::created,
                    {{"id", *created}, {"operators", ops->size()}, {"status", "running"}}, v, ka);
  res.set(http::field::location, "/api/v1/campaigns/" + *created);
  return res;
}

http_response api_router::upload_operator(const http_request& req) const {
  const unsigned v = req.version();
  const bool ka = req.keep_alive();
  result<nlohmann::json> body = parse_json_body(req);
  if (!body.ok()) return error_response(invalid_argument(body.error().message()), v, ka);
  result<upload_receipt> stored = ctx_.uploads.store(*body);
  if (!stored.ok()) return error_response(stored.error(), v, ka);
  return json_response(stored->created ? http::status::created : http::status::ok,
                       {{"id", stored->id},
                        {"operator", stored->operator_name},
                        {"files", stored->files},
                        {"created", stored->created}},
                       v, ka);
}

http_response api_router::metrics(const http_request& req) const {
  metrics_snapshot m;
  m.uptime_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx_.started).count();
  m.events = ctx_.hub->counters();
  m.pool = ctx_.campaigns->pool_stats();
  m.drift = ctx_.campaigns->drift_readings();
  m.campaigns_running = ctx_.campaigns->running_count();
  m.llm_gateway = ctx_.campaigns->llm_stats();
  if (std::optional<llm::token_ledger> ledger = ctx_.campaigns->llm_ledger()) {
    const llm::ledger_entry total = ledger->total();
    m.llm_billed_prompt_tokens = total.billed.prompt_tokens;
    m.llm_billed_completion_tokens = total.billed.completion_tokens;
  }
  if (result<std::vector<storage::keyed_value>> all = ctx_.db->list_campaigns(); all.ok()) {
    for (const storage::keyed_value& kv : *all) {
      m.campaigns_by_status[kv.value.value("status", "unknown")]++;
      result<std::optional<llm::token_ledger>> usage = runtime::llm_usage_of(kv.value);
      if (!usage.ok() || !*usage) continue;
      const llm::ledger_entry total = (*usage)->total();
      m.llm_prompt_tokens += total.used.prompt_tokens;
      m.llm_completion_tokens += total.used.completion_tokens;
      m.llm_calls += total.calls;
    }
  }
  http_response res{http::status::ok, req.version()};
  res.set(http::field::content_type, "text/plain; version=0.0.4");
  res.keep_alive(req.keep_alive());
  res.body() = prometheus_text(m);
  res.prepare_payload();
  return res;
}

http_response api_router::static_file(const http_request& req, const std::string& name) const {
  const unsigned v = req.version();
  const bool ka = req.keep_alive();
  // Only plain file names directly in the web folder: the segment parser already refused '/',
  // '.' and '..', and hidden files are refused here.
  if (name.empty() || name.front() == '.') {
    return error_response(not_found("no such file"), v, ka);
  }
  const fs::path file = ctx_.web_dir / name;
  std::ifstream in(file, std::ios::binary);
  if (!in) return error_response(not_found("no such file: " + name), v, ka);
  std::ostringstream text;
  text << in.rdbuf();
  http_response res{http::status::ok, v};
  res.set(http::field::content_type, content_type_of(file));
  res.keep_alive(ka);
  res.body() = text.str();
  res.prepare_payload();
  return res;
}

}  // namespace aopt::server
