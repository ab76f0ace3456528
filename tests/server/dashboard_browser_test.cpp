// Drives the dashboard of a real `aopt serve` in headless Chromium while a campaign runs, and
// checks the rendered page: the campaign row, its progress bar and the operator's trajectory
// chart. Skipped (with a message) only where Debian's chromium is not installed;
// scripts/setup.sh installs it. With AOPT_SCREENSHOT_DIR set, the page's screenshot is also
// copied there as dashboard.png.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "base/subprocess.hpp"
#include "daemon_process.hpp"
#include "server/http_client.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    for (const char* dir : {"/usr/bin", "/usr/local/bin", "/bin"}) {
      const fs::path p = fs::path(dir) / name;
      if (access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

aopt::subprocess_result run_chromium(const std::string& chromium, const fs::path& profile,
                                     const std::vector<std::string>& args) {
  aopt::subprocess_options o;
  o.argv = {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--user-data-dir=" + profile.string(),
            // Lets the page's fetches finish before the DOM is dumped, without a wall-clock wait.
            "--virtual-time-budget=5000", "--window-size=1280,1400"};
  o.argv.insert(o.argv.end(), args.begin(), args.end());
  o.limits.wall_seconds = 120;
  o.output_limit_bytes = 8 << 20;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

}  // namespace

TEST_CASE("the dashboard renders the campaign, its progress and a trajectory chart") {
  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    MESSAGE("SKIPPED: chromium is not installed (scripts/setup.sh installs Debian's chromium)");
    return;
  }
  aopt::testing::temp_dir dir;
  aopt::testing::daemon_process daemon(
      {"--listen", "127.0.0.1:0", "--db", (dir.path() / "db").string(), "--set",
       "server.roots=[\"" + std::string(AOPT_SOURCE_DIR) + "/corpus\"]"});
  REQUIRE(daemon.wait_ready());
  auto url = aopt::server::parse_server_url(daemon.url());
  REQUIRE(url.ok());
  const nlohmann::json body = {
      {"operators", {std::string(AOPT_SOURCE_DIR) + "/corpus/level1/add_custom"}},
      {"campaign", "ui"},
      {"budget", 3},
      {"rounds", 1}};
  auto created = aopt::server::http_call(*url, "POST", "/api/v1/campaigns", body.dump(), "");
  REQUIRE(created.ok());
  REQUIRE(created->status == 201);
  // The chart needs a point beyond the baseline: wait for the first evaluated candidate (the
  // baseline's event comes first and spends no budget).
  aopt::status followed = aopt::server::read_event_stream(
      *url, "/api/v1/events?since=0&campaign=ui", "", [](const aopt::server::sse_message& m) {
        if (m.type != "candidate_evaluated") return true;
        const nlohmann::json data = nlohmann::json::parse(m.data, nullptr, false);
        return !data.is_object() || data.value("candidates", 0u) < 1;
      });
  REQUIRE(followed.ok());

  const aopt::subprocess_result dom =
      run_chromium(chromium, dir.path() / "profile", {"--dump-dom", daemon.url() + "/"});
  REQUIRE_MESSAGE(dom.succeeded(), (dom.describe() + "\n" + dom.stderr_text));
  const std::string& html = dom.stdout_text;
  CHECK(html.find("data-campaign=\"ui\"") != std::string::npos);
  CHECK(html.find("class=\"progress\"") != std::string::npos);
  CHECK(html.find("data-operator=\"add_custom\"") != std::string::npos);
  CHECK(html.find("id=\"trajectory\"") != std::string::npos);
  CHECK(html.find("class=\"trajectory-line\"") != std::string::npos);
  CHECK(html.find("id=\"cdf-chart\"") != std::string::npos);

  const fs::path shot = dir.path() / "dashboard.png";
  const aopt::subprocess_result png = run_chromium(
      chromium, dir.path() / "profile", {"--screenshot=" + shot.string(), daemon.url() + "/"});
  CHECK_MESSAGE(png.succeeded(), png.describe());
  CHECK(fs::exists(shot));
  CHECK(fs::file_size(shot) > 10000);

  // The temporary folder goes away with the test; a screenshot worth quoting is kept here.
  const char* keep = std::getenv("AOPT_SCREENSHOT_DIR");
  if (keep != nullptr && *keep != '\0' && fs::exists(shot)) {
    const fs::path kept = fs::path(keep) / "dashboard.png";
    std::error_code ec;
    fs::create_directories(kept.parent_path(), ec);
    fs::copy_file(shot, kept, fs::copy_options::overwrite_existing, ec);
    CHECK_MESSAGE(!ec, kept.string() << ": " << ec.message());
    MESSAGE("screenshot: " << fs::absolute(kept).string());
  }
}
