// Uploaded operator packages: the file-name rules, and an upload used by a campaign through the
// API router (no sockets: the router is a function from request to response).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config/aopt_config.hpp"
#include "server/api_router.hpp"
#include "server/operator_uploads.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
namespace http = boost::beast::http;

const fs::path corpus_root = fs::path(AOPT_SOURCE_DIR) / "corpus";

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The files of a corpus_root package as an upload body.
nlohmann::json package_body(const std::string& op) {
  nlohmann::json files = nlohmann::json::object();
  const fs::path dir = corpus_root / "level1" / op;
  for (const char* name : {"op.json", "reference.cpp"}) files[name] = read_text(dir / name);
  files["op_host/" + op + ".cpp"] = read_text(dir / "op_host" / (op + ".cpp"));
  files["op_host/" + op + "_tiling.h"] = read_text(dir / "op_host" / (op + "_tiling.h"));
  files["op_kernel/" + op + ".cpp"] = read_text(dir / "op_kernel" / (op + ".cpp"));
  return {{"files", files}};
}

// A daemon's parts without the HTTP server.
struct router_fixture {
  router_fixture() {
    auto opened = aopt::storage::store::open(dir.path() / "db");
    REQUIRE(opened.ok());
    db = std::move(*opened);
    hub = std::make_shared<aopt::server::event_hub>();
    campaigns = std::make_unique<aopt::server::campaign_manager>(*db, hub, 1);
    aopt::server::api_context ctx;
    ctx.db = db.get();
    ctx.campaigns = campaigns.get();
    ctx.hub = hub.get();
    ctx.roots = aopt::server::path_roots({corpus_root});
    ctx.uploads = aopt::server::operator_uploads(dir.path() / "db" / "uploads");
    ctx.load_config = [](const std::vector<std::string>& overrides) {
      return aopt::config::load_config("", overrides);
    };
    router = std::make_unique<aopt::server::api_router>(std::move(ctx));
  }
  ~router_fixture() { campaigns->stop_all(); }

  aopt::server::http_response post(const std::string& target, const std::string& body) {
    aopt::server::http_request req{http::verb::post, target, 11};
    req.body() = body;
    req.prepare_payload();
    return router->handle(req).response;
  }

  aopt::testing::temp_dir dir;
  std::unique_ptr<aopt::storage::store> db;
  std::shared_ptr<aopt::server::event_hub> hub;
  std::unique_ptr<aopt::server::campaign_manager> campaigns;
  std::unique_ptr<aopt::server::api_router> router;
};

std::string error_of(const aopt::server::http_response& res) {
  return nlohmann::json::parse(res.body()).value("error", "");
}

}  // namespace

TEST_CASE("only the files of the package layout are valid upload file names") {
  using aopt::server::valid_package_file_name;
  for (const char* ok :
       {"op.json", "reference.cpp", "op_host/add_custom.cpp", "op_host/add_custom_tiling.h",
        "op_kernel/add_custom.cpp", "op_kernel/helpers.hpp"}) {
    INFO(ok);
    CHECK(valid_package_file_name(ok));
  }
  for (const char* bad : {"", "/etc/passwd", "../op.json", "op_host/../../evil.cpp",
                          "op_host/../op.json", "op_kernel/./k.cpp", "./op.json", "op_host//a.cpp",
                          "op_host/.hidden.cpp", "other/a.cpp", "op_host/sub/a.cpp", "op_host/a.sh",
                          "op_host\\a.cpp", "op_host/", "op_host/a.cpp/", "op_host/a b.cpp"}) {
    INFO(bad);
    CHECK(!valid_package_file_name(bad));
  }
}

TEST_CASE("an uploaded package is stored once and runs in a campaign") {
  router_fixture f;
  const std::string body = package_body("add_custom").dump();
  const auto uploaded = f.post("/api/v1/operators", body);
  REQUIRE_MESSAGE(uploaded.result() == http::status::created, uploaded.body());
  const nlohmann::json receipt = nlohmann::json::parse(uploaded.body());
  const std::string id = receipt.at("id");
  CHECK(id.rfind("u-", 0) == 0);
  CHECK(receipt.at("operator") == "add_custom");
  CHECK(receipt.at("files") == 5);
  CHECK(fs::exists(f.dir.path() / "db" / "uploads" / id / "op_kernel" / "add_custom.cpp"));

  // The same package again: the stored copy, unchanged.
  const auto again = f.post("/api/v1/operators", body);
  CHECK(again.result() == http::status::ok);
  CHECK(nlohmann::json::parse(again.body()).at("id") == id);

  const nlohmann::json request = {
      {"uploads", {id}}, {"campaign", "up"}, {"budget", 1}, {"rounds", 1}};
  const auto created = f.post("/api/v1/campaigns", request.dump());
  REQUIRE_MESSAGE(created.result() == http::status::created, created.body());
  CHECK(nlohmann::json::parse(created.body()).at("operators") == 1);
  REQUIRE(f.campaigns->wait_idle(600));
  const auto record = f.db->get_campaign("up");
  REQUIRE(record.ok());
  CHECK(record->value("status", "") == "done");
  REQUIRE(record->at("operators").size() == 1);
  CHECK(record->at("operators")[0].get<std::string>().find("/uploads/" + id) != std::string::npos);
  CHECK(f.db->get_episode("up", "add_custom").ok());
}

TEST_CASE("bad uploads are refused with 400 and store nothing") {
  router_fixture f;
  const nlohmann::json good = package_body("add_custom");

  SUBCASE("a traversal file name") {
    for (const char* name : {"../evil.cpp", "op_host/../../evil.cpp", "/tmp/evil.cpp"}) {
      INFO(name);
      nlohmann::json body = good;
      body["files"][name] = "int x;";
      const auto res = f.post("/api/v1/operators", body.dump());
      CHECK(res.result() == http::status::bad_request);
      CHECK(error_of(res).find("package layout") != std::string::npos);
    }
  }
  SUBCASE("a file above the size limit") {
    nlohmann::json body = good;
    body["files"]["op_host/big.h"] =
        std::string(aopt::server::operator_uploads::max_file_bytes + 1, ' ');
    CHECK(f.post("/api/v1/operators", body.dump()).result() == http::status::bad_request);
  }
  SUBCASE("a package that does not load") {
    nlohmann::json body = good;
    body["files"].erase("reference.cpp");
    const auto res = f.post("/api/v1/operators", body.dump());
    CHECK(res.result() == http::status::bad_request);
    CHECK(error_of(res).find("reference.cpp") != std::string::npos);
    CHECK(error_of(res).find(".staging") == std::string::npos);
    body = good;
    body["files"]["op.json"] = "{";
    CHECK(f.post("/api/v1/operators", body.dump()).result() == http::status::bad_request);
  }
  SUBCASE("malformed bodies") {
    CHECK(f.post("/api/v1/operators", "{").result() == http::status::bad_request);
    CHECK(f.post("/api/v1/operators", "[]").result() == http::status::bad_request);
    CHECK(f.post("/api/v1/operators", "{\"files\": []}").result() == http::status::bad_request);
    CHECK(f.post("/api/v1/operators", "{\"files\": {\"op.json\": 1}}").result() ==
          http::status::bad_request);
    CHECK(f.post("/api/v1/operators", "{\"files\": {}, \"x\": 1}").result() ==
          http::status::bad_request);
  }
  SUBCASE("a campaign naming an unknown or malformed upload id") {
    CHECK(f.post("/api/v1/campaigns", "{\"uploads\": [\"u-0123456789abcdef\"]}").result() ==
          http::status::not_found);
    CHECK(f.post("/api/v1/campaigns", "{\"uploads\": [\"../../etc\"]}").result() ==
          http::status::bad_request);
    CHECK(f.post("/api/v1/campaigns", "{\"uploads\": \"u-0123456789abcdef\"}").result() ==
          http::status::bad_request);
  }
  std::error_code ec;
  const fs::path uploads = f.dir.path() / "db" / "uploads";
  const bool empty = !fs::exists(uploads, ec) || fs::is_empty(uploads, ec);
  CHECK(empty);
}
