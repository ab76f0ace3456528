// End to end: the real `aopt run` binary runs one episode of corpus/level1/add_custom with the
// LLM mutator and refiner (the diagnoser and retriever stay heuristic) against the stub endpoint
// on loopback. The scripted answers carry a real tiling change (more cores), a worse one
// (smaller tiles) and a real kernel rewrite (double-buffered queues); the simulator evaluates
// them and the episode keeps the faster candidates only. The tokens the endpoint reported reach
// the run's summary, the report and the campaign record. A second campaign over the same
// database (`--llm-cache read`) replays every answer from the llm_cache without calling the
// endpoint; `aopt resume --llm-cache` runs the stored campaign with another cache mode.
// A run killed with SIGKILL between two LLM calls of one step and resumed with `aopt resume`
// accounts every token the endpoint reported exactly once.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/episode/episode_state.hpp"
#include "base/subprocess.hpp"
#include "config/aopt_config.hpp"
#include "storage/store.hpp"
#include "support/openai_stub_server.hpp"
#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;
namespace test = aopt::test;

std::string edit(const std::vector<std::string>& search, const std::vector<std::string>& replace) {
  std::string text = "<<<<<<< SEARCH\n";
  for (const std::string& line : search) text += line + "\n";
  text += "=======\n";
  for (const std::string& line : replace) text += line + "\n";
  return text + ">>>>>>> REPLACE\n";
}

const std::vector<std::string> single_buffer = {
    "        pipe.InitBuffer(inQueueX, bufferNum, tileLength * sizeof(half));",
    "        pipe.InitBuffer(inQueueY, bufferNum, tileLength * sizeof(half));",
    "        pipe.InitBuffer(outQueueZ, bufferNum, tileLength * sizeof(half));"};
const std::vector<std::string> double_buffer = {
    "        pipe.InitBuffer(inQueueX, 2, tileLength * sizeof(half));",
    "        pipe.InitBuffer(inQueueY, 2, tileLength * sizeof(half));",
    "        pipe.InitBuffer(outQueueZ, 2, tileLength * sizeof(half));"};

std::vector<test::stub_action> scripted_answers() {
  return {
      test::reply("Use all 40 vector cores.\n" +
                  edit({"constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]"},
                       {"constexpr uint32_t BLOCK_DIM = 40;      // tunable: range [1, 40]"})),
      test::reply("Try smaller tiles.\n" +
                  edit({"constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 32768]"},
                       {"constexpr uint32_t TILE_LENGTH = 256;   // tunable: pow2 [256, 32768]"})),
      test::reply("Double-buffer the queues so MTE2, V and MTE3 overlap.\n" +
                  edit(single_buffer, double_buffer)),
  };
}

aopt::subprocess_result run_command(std::vector<std::string> argv) {
  aopt::subprocess_options o;
  o.argv = std::move(argv);
  o.argv.insert(o.argv.begin(), AOPT_BINARY);
  o.limits.wall_seconds = 300;
  auto r = aopt::run_subprocess(o);
  REQUIRE_MESSAGE(r.ok(), r.error().to_string());
  return std::move(r).value();
}

// `aopt run` of add_custom with the LLM mutator and refiner; `extra` are more arguments.
std::vector<std::string> aopt_args(const fs::path& db, const std::string& campaign,
                                   const std::string& base_url,
                                   const std::vector<std::string>& extra) {
  const fs::path op = aopt::config::builtin_config_dir().parent_path() / "corpus/level1/add_custom";
  std::vector<std::string> argv = {
      "run",        op.string(), "--db",     db.string(),
      "--campaign", campaign,    "--report", (db.parent_path() / "reports").string(),
      "--json"};
  for (const std::string& s : std::vector<std::string>{
           "roles.mutator.policy=llm", "roles.refiner.policy=llm", "llm.base_url=" + base_url,
           "llm.model=stub-model", "llm.max_retries=0", "campaign.rounds=1",
           "campaign.stage1_steps=2", "campaign.stage2_steps=1", "campaign.budget=10",
           "campaign.jobs=1", "device.slots=1", "device.input_sets=3"}) {
    argv.push_back("--set");
    argv.push_back(s);
  }
  argv.insert(argv.end(), extra.begin(), extra.end());
  return argv;
}

aopt::subprocess_result run_aopt(const fs::path& db, const std::string& campaign,
                                 const std::string& base_url,
                                 const std::vector<std::string>& extra) {
  return run_command(aopt_args(db, campaign, base_url, extra));
}

// Starts aopt with `args` (stdout discarded, stderr to `log`) and returns its pid.
pid_t start_aopt(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> argv = args;
  argv.insert(argv.begin(), AOPT_BINARY);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(devnull, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    std::vector<char*> cargs;
    for (const std::string& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
    cargs.push_back(nullptr);
    execv(cargs[0], cargs.data());
    _exit(127);
  }
  return pid;
}

nlohmann::json campaign_usage(const fs::path& db, const std::string& campaign) {
  auto store = aopt::storage::store::open(db);
  REQUIRE_MESSAGE(store.ok(), store.error().to_string());
  auto record = (*store)->get_campaign(campaign);
  REQUIRE_MESSAGE(record.ok(), record.error().to_string());
  REQUIRE(record->contains("llm_usage"));
  return record->at("llm_usage");
}

const nlohmann::json& entry_of(const nlohmann::json& usage, const std::string& role) {
  for (const nlohmann::json& e : usage.at("entries"))
    if (e.at("role") == role) return e;
  FAIL("no usage entry for role " << role);
  return usage;
}

// The JSON summary `--json` prints as the last line of stdout.
nlohmann::json summary_of(const aopt::subprocess_result& r) {
  std::string text = r.stdout_text;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  const size_t start = text.rfind('\n');
  return nlohmann::json::parse(start == std::string::npos ? text : text.substr(start + 1));
}

uint64_t tokens(const nlohmann::json& usage, const char* count, const char* kind) {
  return usage.at("total").at(count).at(kind).get<uint64_t>();
}

std::vector<aopt::agent::candidate_record> candidates(const fs::path& db,
                                                      const std::string& campaign) {
  auto store = aopt::storage::store::open(db);
  REQUIRE_MESSAGE(store.ok(), store.error().to_string());
  auto rows = (*store)->list_candidates(campaign, "add_custom");
  REQUIRE_MESSAGE(rows.ok(), rows.error().to_string());
  std::vector<aopt::agent::candidate_record> records;
  for (const auto& row : *rows) {
    auto c = aopt::agent::candidate_record_from_json(row.value);
    REQUIRE_MESSAGE(c.ok(), c.error().to_string());
    records.push_back(std::move(*c));
  }
  return records;
}

}  // namespace

TEST_SUITE("agent") {
  TEST_CASE(
      "an episode with the LLM mutator and refiner keeps the faster rewrites and replays "
      "them from the cache") {
    aopt::testing::temp_dir dir;
    const fs::path db = dir.path() / "db";
    test::openai_stub_server server;
    server.script(scripted_answers());

    auto first = run_aopt(db, "llm-e2e", server.base_url(), {"--llm-cache", "readwrite"});
    REQUIRE_MESSAGE(first.exit_code == 0, (first.stdout_text + first.stderr_text));
    CHECK(server.chat_requests() == 3);
    CHECK(server.scripted_left() == 0);

    const auto records = candidates(db, "llm-e2e");
    REQUIRE(records.size() == 4);
    const auto& baseline = records[0];
    const auto& more_cores = records[1];
    const auto& small_tiles = records[2];
    const auto& rewrite = records[3];
    REQUIRE(baseline.result.ok());
    CHECK(baseline.result.latency_is_simulated);

    CHECK(more_cores.role == "mutator");
    CHECK(more_cores.policy == "llm-mutator");
    CHECK(more_cores.origin.find("llm-mutator[stub-model]") == 0);
    CHECK(more_cores.tiling.find("BLOCK_DIM = 40;") != std::string::npos);
    REQUIRE(more_cores.result.ok());
    CHECK(more_cores.result.latency_us < baseline.result.latency_us);
    CHECK(more_cores.accepted);

    CHECK(small_tiles.policy == "llm-mutator");
    CHECK(small_tiles.tiling.find("TILE_LENGTH = 256;") != std::string::npos);
    REQUIRE(small_tiles.result.ok());
    CHECK(small_tiles.result.latency_us > more_cores.result.latency_us);
    CHECK_FALSE(small_tiles.accepted);

    CHECK(rewrite.role == "refiner");
    CHECK(rewrite.policy == "llm-refiner");
    CHECK(rewrite.origin == "llm");
    CHECK(rewrite.tiling == more_cores.tiling);  // Stage II starts from the kept T
    CHECK(rewrite.kernel.find("InitBuffer(inQueueX, 2,") != std::string::npos);
    REQUIRE(rewrite.result.ok());
    CHECK(rewrite.result.latency_us < more_cores.result.latency_us);
    CHECK(rewrite.accepted);
    CHECK(rewrite.best_after_us == rewrite.result.latency_us);

    // The prompts said what the device is: simulated latencies, labelled as such.
    const auto seen = server.received();
    REQUIRE(seen.size() == 3);
    const std::string mutation_prompt =
        seen[0].body.at("messages").back().at("content").get<std::string>();
    CHECK(mutation_prompt.find("(simulated)") != std::string::npos);

    // Token accounting reaches the user: the run's summary, the report files and the campaign
    // record (`aopt report`) all carry the tokens the endpoint reported, per operator and role.
    const test::stub_usage reported = server.reported_usage();
    REQUIRE(reported.prompt_tokens > 0);
    const nlohmann::json usage = summary_of(first).at("llm_usage");
    CHECK(tokens(usage, "billed", "prompt_tokens") == reported.prompt_tokens);
    CHECK(tokens(usage, "billed", "completion_tokens") == reported.completion_tokens);
    CHECK(tokens(usage, "used", "prompt_tokens") == reported.prompt_tokens);
    CHECK(usage.at("total").at("calls") == 3);
    REQUIRE(usage.at("entries").size() == 2);
    CHECK(usage.at("entries")[0].at("op") == "add_custom");
    CHECK(usage.at("entries")[0].at("role") == "mutator");
    CHECK(usage.at("entries")[0].at("calls") == 2);
    CHECK(usage.at("entries")[1].at("role") == "refiner");
    CHECK(usage.at("entries")[1].at("calls") == 1);
    std::ifstream markdown(db.parent_path() / "reports/llm-e2e/report.md");
    std::stringstream md;
    md << markdown.rdbuf();
    CHECK(md.str().find("## LLM usage") != std::string::npos);
    CHECK(md.str().find("| add_custom | refiner | 1 | 0 | 0 |") != std::string::npos);

    auto stored = run_command({"report", "llm-e2e", "--db", db.string(), "--report",
                               (db.parent_path() / "reports-again").string(), "--json"});
    REQUIRE_MESSAGE(stored.exit_code == 0, stored.stderr_text);
    CHECK(summary_of(stored).at("llm_usage") == usage);

    // A repeated campaign with --llm-cache read: every answer from the llm_cache, none from the
    // endpoint; its tokens count as used, none as billed.
    auto second = run_aopt(db, "llm-e2e-again", server.base_url(), {"--llm-cache", "read"});
    REQUIRE_MESSAGE(second.exit_code == 0, (second.stdout_text + second.stderr_text));
    CHECK(server.chat_requests() == 3);
    const auto replayed = candidates(db, "llm-e2e-again");
    REQUIRE(replayed.size() == records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      CHECK(replayed[i].tiling == records[i].tiling);
      CHECK(replayed[i].kernel == records[i].kernel);
      CHECK(replayed[i].accepted == records[i].accepted);
      CHECK(replayed[i].policy == records[i].policy);
    }
    const nlohmann::json replay_usage = summary_of(second).at("llm_usage");
    CHECK(replay_usage.at("total").at("cache_hits") == 3);
    CHECK(tokens(replay_usage, "billed", "prompt_tokens") == 0);
    CHECK(tokens(replay_usage, "used", "prompt_tokens") == reported.prompt_tokens);
    CHECK(tokens(replay_usage, "used", "completion_tokens") == reported.completion_tokens);

    // `aopt resume --llm-cache` changes how the stored campaign runs; its usage carries over
    // from the record instead of restarting at zero or counting twice.
    auto resumed =
        run_command({"resume", "llm-e2e", "--db", db.string(), "--llm-cache", "off", "--json"});
    REQUIRE_MESSAGE(resumed.exit_code == 0, (resumed.stdout_text + resumed.stderr_text));
    CHECK(summary_of(resumed).at("llm_usage") == usage);
    {
      auto store = aopt::storage::store::open(db);
      REQUIRE(store.ok());
      auto record = (*store)->get_campaign("llm-e2e");
      REQUIRE(record.ok());
      CHECK(record->at("config").at("llm").at("cache") == "off");
    }

    auto bad = run_aopt(db, "llm-e2e-bad", server.base_url(), {"--llm-cache", "sometimes"});
    CHECK(bad.exit_code == 2);
    CHECK(bad.stderr_text.find("llm.cache") != std::string::npos);
  }

  TEST_CASE("LLM token usage survives kill -9 and is counted once after aopt resume") {
    aopt::testing::temp_dir dir;
    const fs::path db = dir.path() / "db";
    test::openai_stub_server server;
    std::vector<test::stub_action> script = scripted_answers();
    // Stage II asks the diagnoser, then the refiner; the refiner's first request stalls, so the
    // process is killed with the diagnosis answered (billed, cached) but its step unpersisted.
    script.insert(script.begin() + 2,
                  test::reply("```json\n{\"bottleneck\": \"MTE2 waits: the queues are "
                              "single-buffered\", \"tags\": [\"no_overlap\"]}\n```"));
    script.insert(script.begin() + 3, test::stall());
    server.script(script);

    const fs::path log = dir.path() / "killed.log";
    const pid_t pid = start_aopt(
        aopt_args(db, "llm-kill", server.base_url(), {"--set", "roles.diagnoser.policy=llm"}), log);
    int wstatus = 0;
    bool exited = false;
    while (!exited && !server.wait_for_requests(4, std::chrono::milliseconds(100)))
      exited = waitpid(pid, &wstatus, WNOHANG) == pid;
    if (!exited) {
      kill(pid, SIGKILL);
      waitpid(pid, &wstatus, 0);
    }
    std::ifstream log_file(log);
    std::stringstream log_text;
    log_text << log_file.rdbuf();
    REQUIRE_MESSAGE(!exited, "aopt ended before the stalled call:\n" << log_text.str());
    CHECK(WIFSIGNALED(wstatus));

    // What the killed process persisted: everything billed, and the two mutations its
    // persisted steps consumed; not the diagnosis, whose step it never wrote.
    const test::stub_usage billed_before_kill = server.reported_usage();
    const nlohmann::json killed = campaign_usage(db, "llm-kill");
    CHECK(tokens(killed, "billed", "prompt_tokens") == billed_before_kill.prompt_tokens);
    CHECK(tokens(killed, "billed", "completion_tokens") == billed_before_kill.completion_tokens);
    CHECK(killed.at("total").at("calls") == 2);

    auto resumed = run_command({"resume", "llm-kill", "--db", db.string(), "--json"});
    REQUIRE_MESSAGE(resumed.exit_code == 0, (resumed.stdout_text + resumed.stderr_text));
    CHECK(server.chat_requests() == 5);  // the diagnosis was replayed from the llm_cache
    CHECK(server.scripted_left() == 0);

    const test::stub_usage reported = server.reported_usage();
    const nlohmann::json usage = summary_of(resumed).at("llm_usage");
    CHECK(tokens(usage, "billed", "prompt_tokens") == reported.prompt_tokens);
    CHECK(tokens(usage, "billed", "completion_tokens") == reported.completion_tokens);
    CHECK(tokens(usage, "used", "prompt_tokens") == reported.prompt_tokens);
    CHECK(tokens(usage, "used", "completion_tokens") == reported.completion_tokens);
    CHECK(usage.at("total").at("calls") == 4);
    CHECK(usage.at("total").at("cache_hits") == 1);
    CHECK(entry_of(usage, "mutator").at("calls") == 2);
    CHECK(entry_of(usage, "diagnoser").at("calls") == 1);
    CHECK(entry_of(usage, "diagnoser").at("cache_hits") == 1);
    CHECK(entry_of(usage, "refiner").at("calls") == 1);
    CHECK(campaign_usage(db, "llm-kill") == usage);

    const auto records = candidates(db, "llm-kill");
    REQUIRE(records.size() == 4);
    CHECK(records[3].role == "refiner");
    CHECK(records[3].accepted);
  }

}  // TEST_SUITE
