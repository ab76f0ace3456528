#include "storage/store.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>
#include <rocksdb/db.h>

#include "base/content_hash.hpp"
#include "support/temp_dir.hpp"

extern char** environ;

namespace {

using aopt::status_code;
using nlohmann::json;
namespace storage = aopt::storage;

#define REQUIRE_OK(expr)                                                      \
  do {                                                                        \
    const ::aopt::status& require_ok_status_ = (expr);                        \
    REQUIRE_MESSAGE(require_ok_status_.ok(), require_ok_status_.to_string()); \
  } while (0)

std::unique_ptr<storage::store> open_store(const std::filesystem::path& path,
                                           storage::store_options options = {}) {
  options.sync = false;  // these tests never lose power; the crash test sets sync itself
  auto s = storage::store::open(path, options);
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  return std::move(s).value();
}

storage::transition make_transition(const std::string& campaign, const std::string& op,
                                    uint64_t seq) {
  storage::transition t;
  t.campaign = campaign;
  t.op = op;
  t.episode_state = {{"seq", seq}, {"stage", 1}};
  t.candidate =
      storage::candidate_record{seq, {{"seq", seq}, {"kernel", "k" + std::to_string(seq)}}};
  return t;
}

std::string cache_key(const std::string& kind, uint64_t i) {
  return aopt::content_hash({kind, std::to_string(i)});
}

// Writes raw bytes to one column family of a closed aopt database, as a damaged or foreign
// database would hold them.
void write_raw(const std::filesystem::path& path, const std::string& family, const std::string& key,
               const std::string& value) {
  rocksdb::DBOptions options;
  options.create_missing_column_families = true;
  std::vector<std::string> names;
  REQUIRE(rocksdb::DB::ListColumnFamilies(options, path.string(), &names).ok());
  if (std::find(names.begin(), names.end(), family) == names.end()) names.push_back(family);
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  for (const auto& n : names) descriptors.emplace_back(n, rocksdb::ColumnFamilyOptions());
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  REQUIRE(rocksdb::DB::Open(options, path.string(), descriptors, &handles, &db).ok());
  size_t index = std::find(names.begin(), names.end(), family) - names.begin();
  CHECK(db->Put(rocksdb::WriteOptions(), handles[index], key, value).ok());
  for (auto* h : handles) CHECK(db->DestroyColumnFamilyHandle(h).ok());
  CHECK(db->Close().ok());
  delete db;
}

// --- child processes -----------------------------------------------------------------------------
//
// A child is this test binary run again with one hidden test case (marked skip, so normal runs
// and ctest never run it alone): spawning a fresh process is safe where fork() alone would copy
// RocksDB's background threads in an unknown state.

constexpr int child_report_fd = 100;   // child writes progress here
constexpr int child_release_fd = 101;  // child blocks reading here until the parent closes it

class pipe_pair {
 public:
  pipe_pair() { REQUIRE(pipe2(fds_, O_CLOEXEC) == 0); }
  ~pipe_pair() {
    close_read();
    close_write();
  }
  int read_end() const { return fds_[0]; }
  int write_end() const { return fds_[1]; }
  void close_read() { close_fd(fds_[0]); }
  void close_write() { close_fd(fds_[1]); }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int fds_[2] = {-1, -1};
};

class child_process {
 public:
  // Runs the hidden test case `test_case` with AOPT_STORE_CHILD_DB=db; `report` becomes the
  // child's child_report_fd and `release` (when >= 0) its child_release_fd.
  child_process(const std::string& test_case, const std::filesystem::path& db, int report,
                int release) {
    std::vector<std::string> args = {"/proc/self/exe", "--no-skip", "--test-case=" + test_case,
                                     "--no-version"};
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    env.push_back("AOPT_STORE_CHILD_DB=" + db.string());
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, report, child_report_fd);
    if (release >= 0) posix_spawn_file_actions_adddup2(&actions, release, child_release_fd);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(&pid_, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE_MESSAGE(rc == 0, "posix_spawn: " << std::strerror(rc));
  }
  ~child_process() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      wait();
    }
  }
  void kill_hard() { REQUIRE(kill(pid_, SIGKILL) == 0); }
  // Returns the raw wait status.
  int wait() {
    int st = 0;
    while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return st;
  }

 private:
  pid_t pid_ = -1;
};

std::string child_db() {
  const char* db = std::getenv("AOPT_STORE_CHILD_DB");
  REQUIRE_MESSAGE(db != nullptr, "run only as a child of the storage tests");
  return db;
}

// Reads one value the child reported; false at end of stream (the child is gone).
bool read_report(int fd, uint64_t& value) {
  size_t got = 0;
  auto* bytes = reinterpret_cast<char*>(&value);
  while (got < sizeof value) {
    ssize_t n = ::read(fd, bytes + got, sizeof value - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    got += static_cast<size_t>(n);
  }
  return true;
}

bool write_report(uint64_t value) {
  return ::write(child_report_fd, &value, sizeof value) == static_cast<ssize_t>(sizeof value);
}

const std::string crash_campaign = "crash";
const std::string crash_op = "add_custom";

}  // namespace

TEST_SUITE("storage") {
  TEST_CASE("a fresh database is stamped with the schema version and reopens") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "nested" / "db";
    {
      auto db = open_store(path);
      CHECK(db->path() == path);
      auto version = db->get_meta("schema_version");
      REQUIRE(version.ok());
      CHECK(*version == storage::schema_version);
      REQUIRE_OK(db->put_campaign("c1", {{"status", "running"}}));
    }
    auto db = open_store(path);
    auto record = db->get_campaign("c1");
    REQUIRE(record.ok());
    CHECK((*record)["status"] == "running");
  }

  TEST_CASE("a missing database is not created when create_if_missing is off or read-only") {
    aopt::testing::temp_dir dir;
    storage::store_options no_create, read_only;
    no_create.create_if_missing = false;
    read_only.read_only = true;
    for (const storage::store_options& options : {no_create, read_only}) {
      auto db = storage::store::open(dir.path() / "none", options);
      REQUIRE_FALSE(db.ok());
      CHECK(db.error().code() == status_code::not_found);
      CHECK(db.error().message().find((dir.path() / "none").string()) != std::string::npos);
      CHECK_FALSE(std::filesystem::exists(dir.path() / "none"));
    }
  }

  TEST_CASE("every column family round-trips JSON values") {
    aopt::testing::temp_dir dir;
    auto db = open_store(dir.path() / "db");
    json value = {{"text", "üñí\ncode"}, {"n", 3.25}, {"list", {1, 2, 3}}};

    REQUIRE_OK(db->put_campaign("c1", value));
    CHECK(*db->get_campaign("c1") == value);

    REQUIRE_OK(db->put_eval_cache(cache_key("eval", 1), value));
    CHECK(*db->get_eval_cache(cache_key("eval", 1)) == value);
    CHECK(db->get_eval_cache(cache_key("eval", 2)).error().code() == status_code::not_found);

    REQUIRE_OK(db->put_llm_cache(cache_key("llm", 1), value));
    CHECK(*db->get_llm_cache(cache_key("llm", 1)) == value);
    CHECK(db->get_llm_cache(cache_key("eval", 1)).error().code() == status_code::not_found);

    REQUIRE_OK(db->put_tuple("t2", {{"title", "double buffering"}}));
    REQUIRE_OK(db->put_tuple("t1", value));
    CHECK(*db->get_tuple("t1") == value);
    CHECK(*db->count_tuples() == 2);
    auto tuples = db->list_tuples();
    REQUIRE(tuples.ok());
    REQUIRE(tuples->size() == 2);
    CHECK((*tuples)[0].key == "t1");
    CHECK((*tuples)[1].value["title"] == "double buffering");
    REQUIRE_OK(db->erase_tuple("t1"));
    REQUIRE_OK(db->erase_tuple("never-there"));
    CHECK(db->get_tuple("t1").error().code() == status_code::not_found);
    CHECK(*db->count_tuples() == 1);

    REQUIRE_OK(db->put_meta("bank.built_at", "2025-01-01"));
    CHECK(*db->get_meta("bank.built_at") == "2025-01-01");

    auto missing = db->get_campaign("nope");
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().code() == status_code::not_found);
    CHECK(missing.error().message() == "storage: campaigns: no key 'nope'");
  }

  TEST_CASE("invalid UTF-8 in a value is stored as replacement characters, not an error") {
    aopt::testing::temp_dir dir;
    auto db = open_store(dir.path() / "db");
    REQUIRE_OK(db->put_campaign("c", {{"source", std::string("caf\xe9")}}));
    CHECK((*db->get_campaign("c"))["source"] == "caf\xef\xbf\xbd");
  }

  TEST_CASE("names with a separator or empty names are refused") {
    aopt::testing::temp_dir dir;
    auto db = open_store(dir.path() / "db");
    CHECK(db->put_campaign("a/b", json::object()).code() == status_code::invalid_argument);
    CHECK(db->put_campaign("", json::object()).code() == status_code::invalid_argument);
    auto t = make_transition("c", "op/x", 0);
    auto refused = db->commit_transition(t);
    CHECK(refused.code() == status_code::invalid_argument);
    CHECK(refused.message() == "storage: op name 'op/x' contains '/' or a NUL byte");
    CHECK(db->put_eval_cache("", json::object()).code() == status_code::invalid_argument);
    CHECK(db->put_meta("schema_version", 7).code() == status_code::invalid_argument);
    CHECK(*db->get_meta("schema_version") == storage::schema_version);
  }

  TEST_CASE("a transition writes state, candidate, caches and campaign record together") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "db";
    {
      auto db = open_store(path);
      auto t = make_transition("c1", "softmax", 0);
      t.eval_cache.push_back({cache_key("eval", 0), {{"latency_us", 12.5}}});
      t.llm_cache.push_back({cache_key("llm", 0), {{"content", "answer"}}});
      t.llm_cache.push_back({cache_key("llm", 1), {{"content", "second"}}});
      t.campaign_record = json{{"status", "running"}, {"evaluations", 1}};
      REQUIRE_OK(db->commit_transition(t));

      storage::transition state_only;
      state_only.campaign = "c1";
      state_only.op = "softmax";
      state_only.episode_state = {{"seq", 0}, {"stage", 2}};
      REQUIRE_OK(db->commit_transition(state_only));
    }
    auto db = open_store(path);
    auto state = db->get_episode("c1", "softmax");
    REQUIRE(state.ok());
    CHECK((*state)["stage"] == 2);
    auto candidates = db->list_candidates("c1", "softmax");
    REQUIRE(candidates.ok());
    REQUIRE(candidates->size() == 1);
    CHECK((*candidates)[0].seq == 0);
    CHECK((*candidates)[0].value["kernel"] == "k0");
    CHECK(*db->get_candidate("c1", "softmax", 0) == (*candidates)[0].value);
    CHECK((*db->get_eval_cache(cache_key("eval", 0)))["latency_us"] == 12.5);
    CHECK((*db->get_llm_cache(cache_key("llm", 0)))["content"] == "answer");
    CHECK((*db->get_llm_cache(cache_key("llm", 1)))["content"] == "second");
    CHECK((*db->get_campaign("c1"))["evaluations"] == 1);
  }

  TEST_CASE("a concurrent reader never sees half a transition") {
    aopt::testing::temp_dir dir;
    auto db = open_store(dir.path() / "db");
    constexpr uint64_t transitions = 5000;
    std::atomic<bool> done{false};
    std::atomic<int> torn{0}, observed{0};
    std::thread reader([&] {
      while (!done.load()) {
        // The state is read first: under atomic commits, whatever seq it names was written in
        // the same batch as its candidate and cache entry, so both must be there.
        auto state = db->get_episode("c", "op");
        if (!state.ok()) continue;
        auto seq = (*state)["seq"].get<uint64_t>();
        if (!db->get_candidate("c", "op", seq).ok() ||
            !db->get_eval_cache(cache_key("eval", seq)).ok())
          ++torn;
        ++observed;
      }
    });
    for (uint64_t i = 0; i < transitions; ++i) {
      auto t = make_transition("c", "op", i);
      t.eval_cache.push_back({cache_key("eval", i), {{"seq", i}}});
      REQUIRE_OK(db->commit_transition(t));
      // Halfway, wait until the reader has read a state: on a loaded machine it may otherwise
      // not be scheduled before the writer is done, and nothing would overlap.
      if (i == transitions / 2) {
        while (observed.load() == 0) std::this_thread::yield();
      }
    }
    done = true;
    reader.join();
    CHECK(torn.load() == 0);
    CHECK(observed.load() > 0);
    CHECK(db->list_candidates("c", "op")->size() == transitions);
  }

  TEST_CASE("lists come back in key order and stay within their campaign and episode") {
    aopt::testing::temp_dir dir;
    auto db = open_store(dir.path() / "db");
    for (uint64_t seq : {5, 100, 0, 9, 10, 1, 99})
      REQUIRE_OK(db->commit_transition(make_transition("c", "op", seq)));
    REQUIRE_OK(db->commit_transition(make_transition("c", "op2", 3)));
    REQUIRE_OK(db->commit_transition(make_transition("c", "abs", 3)));
    REQUIRE_OK(db->commit_transition(make_transition("c2", "op", 7)));
    REQUIRE_OK(db->commit_transition(make_transition("c-x", "op", 8)));

    auto candidates = db->list_candidates("c", "op");
    REQUIRE(candidates.ok());
    std::vector<uint64_t> seqs;
    for (const auto& c : *candidates) seqs.push_back(c.seq);
    CHECK(seqs == std::vector<uint64_t>{0, 1, 5, 9, 10, 99, 100});
    CHECK((*candidates)[6].value["seq"] == 100);

    auto episodes = db->list_episodes("c");
    REQUIRE(episodes.ok());
    std::vector<std::string> ops;
    for (const auto& e : *episodes) ops.push_back(e.key);
    CHECK(ops == std::vector<std::string>{"abs", "op", "op2"});
    CHECK(db->list_episodes("none")->empty());

    for (const char* id : {"zeta", "alpha", "mid"}) REQUIRE_OK(db->put_campaign(id, {{"id", id}}));
    auto campaigns = db->list_campaigns();
    REQUIRE(campaigns.ok());
    std::vector<std::string> ids;
    for (const auto& c : *campaigns) ids.push_back(c.key);
    CHECK(ids == std::vector<std::string>{"alpha", "mid", "zeta"});
  }

  TEST_CASE("deleting a campaign removes its episodes and candidates but no neighbour's") {
    aopt::testing::temp_dir dir;
    auto db = open_store(dir.path() / "db");
    // Ids that sort right around "c/": '-' and '.' before '/', '0' right after it.
    std::vector<std::string> ids = {"c", "c-x", "c.x", "c0", "cc"};
    for (const auto& id : ids) {
      REQUIRE_OK(db->put_campaign(id, {{"id", id}}));
      auto t = make_transition(id, "op", 1);
      t.eval_cache.push_back({cache_key(id, 1), {{"id", id}}});
      REQUIRE_OK(db->commit_transition(t));
    }
    REQUIRE_OK(db->delete_campaign("c"));
    REQUIRE_OK(db->delete_campaign("never-there"));
    CHECK(db->get_campaign("c").error().code() == status_code::not_found);
    CHECK(db->get_episode("c", "op").error().code() == status_code::not_found);
    CHECK(db->list_candidates("c", "op")->empty());
    CHECK(db->get_eval_cache(cache_key("c", 1)).ok());  // caches are shared, they stay
    for (const auto& id : {"c-x", "c.x", "c0", "cc"}) {
      INFO("campaign " << id);
      CHECK(db->get_campaign(id).ok());
      CHECK(db->get_episode(id, "op").ok());
      CHECK(db->list_candidates(id, "op")->size() == 1);
    }
  }

  TEST_CASE("a database of another schema version is refused with both versions named") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "db";
    open_store(path).reset();
    write_raw(path, "meta", "schema_version", "99");
    auto db = storage::store::open(path);
    REQUIRE_FALSE(db.ok());
    CHECK(db.error().code() == status_code::failed_precondition);
    CHECK(db.error().message().rfind("storage: database " + path.string() +
                                         " has schema version 99, but this aopt reads schema "
                                         "version 1",
                                     0) == 0);
  }

  TEST_CASE("column families added by a newer aopt of the same schema do not stop opening") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "db";
    open_store(path).reset();
    write_raw(path, "future_family", "k", "{}");
    auto db = open_store(path);
    REQUIRE_OK(db->put_campaign("c", json::object()));
  }

  TEST_CASE("a stored value that is no JSON is reported as data loss") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "db";
    open_store(path).reset();
    write_raw(path, "campaigns", "broken", "{not json");
    auto db = open_store(path);
    auto record = db->get_campaign("broken");
    REQUIRE_FALSE(record.ok());
    CHECK(record.error().code() == status_code::data_loss);
    CHECK(record.error().message().find("campaigns 'broken'") != std::string::npos);
    CHECK(db->list_campaigns().error().code() == status_code::data_loss);
  }

  TEST_CASE("a database open in this process cannot be opened a second time") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "db";
    auto first = open_store(path);
    auto second = storage::store::open(path);
    REQUIRE_FALSE(second.ok());
    CHECK(second.error().code() == status_code::failed_precondition);
    CHECK(second.error().message().rfind("storage: database " + path.string() + " is locked", 0) ==
          0);
  }

  TEST_CASE("child: hold the database open until released" * doctest::skip()) {
    auto db = storage::store::open(child_db());
    REQUIRE(write_report(db.ok() ? 1 : 0));
    char byte;
    while (::read(child_release_fd, &byte, 1) != 0 && errno == EINTR) {
    }
  }

  TEST_CASE("a database held by another process is refused, and opens once it is released") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "db";
    open_store(path).reset();
    pipe_pair report, release;
    child_process holder("child: hold the database open until released", path, report.write_end(),
                         release.read_end());
    report.close_write();
    release.close_read();
    uint64_t opened = 0;
    REQUIRE(read_report(report.read_end(), opened));
    REQUIRE(opened == 1);

    auto refused = storage::store::open(path);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code() == status_code::failed_precondition);
    CHECK(refused.error().message().find(path.string()) != std::string::npos);

    release.close_write();
    int st = holder.wait();
    CHECK(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    CHECK(storage::store::open(path).ok());
  }

  TEST_CASE("child: commit transitions until killed" * doctest::skip()) {
    auto db = storage::store::open(child_db());  // sync on, as in the daemon
    REQUIRE(db.ok());
    uint64_t next = 0;
    if (auto state = (*db)->get_episode(crash_campaign, crash_op); state.ok())
      next = (*state)["seq"].get<uint64_t>() + 1;
    const std::string kernel(4096, 'k');
    for (uint64_t i = next; i < next + 100000; ++i) {
      storage::transition t;
      t.campaign = crash_campaign;
      t.op = crash_op;
      t.episode_state = {{"seq", i}, {"padding", std::string(1024, 's')}};
      t.candidate = storage::candidate_record{i, {{"seq", i}, {"kernel", kernel}}};
      t.eval_cache.push_back({cache_key("eval", i), {{"seq", i}}});
      t.llm_cache.push_back({cache_key("llm", i), {{"seq", i}}});
      t.campaign_record = json{{"last", i}};
      REQUIRE((*db)->commit_transition(t).ok());
      if (!write_report(i)) break;  // the parent is gone
    }
  }

  TEST_CASE("a read-only store reads a database another process is writing, and refuses writes") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "db";
    open_store(path).reset();
    pipe_pair report;
    child_process writer("child: commit transitions until killed", path, report.write_end(), -1);
    report.close_write();
    uint64_t last_reported = 0;
    for (int i = 0; i < 20; ++i) REQUIRE(read_report(report.read_end(), last_reported));

    auto reader = storage::store::open_read_only(path);
    REQUIRE_MESSAGE(reader.ok(), reader.error().to_string());
    auto state = (*reader)->get_episode(crash_campaign, crash_op);
    REQUIRE(state.ok());
    const uint64_t seen = (*state)["seq"].get<uint64_t>();
    CHECK(seen >= last_reported);
    auto candidates = (*reader)->list_candidates(crash_campaign, crash_op);
    REQUIRE(candidates.ok());
    CHECK(candidates->size() >= seen + 1);
    CHECK((*reader)->get_eval_cache(cache_key("eval", last_reported)).ok());

    auto refused = (*reader)->put_campaign("c", json{{"x", 1}});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.code() == status_code::failed_precondition);
    CHECK(refused.message().find("read-only") != std::string::npos);
    storage::transition t;
    t.campaign = "c";
    t.op = "op";
    t.episode_state = json::object();
    CHECK((*reader)->commit_transition(t).code() == status_code::failed_precondition);

    writer.kill_hard();
    writer.wait();
  }

  TEST_CASE("after kill -9 mid-run every transition is either fully present or fully absent") {
    aopt::testing::temp_dir dir;
    auto path = dir.path() / "db";
    std::random_device seed_source;
    std::mt19937 rng(seed_source());
    std::uniform_int_distribution<int> kill_after(5, 60);
    uint64_t previous_last = 0;
    for (int round = 0; round < 3; ++round) {
      int target = kill_after(rng);
      INFO("round " << round << ", kill after " << target << " reported transitions");
      pipe_pair report;
      uint64_t last_reported = 0;
      int reported = 0;
      {
        child_process writer("child: commit transitions until killed", path, report.write_end(),
                             -1);
        report.close_write();
        uint64_t value = 0;
        while (reported < target && read_report(report.read_end(), value)) {
          last_reported = value;
          ++reported;
        }
        REQUIRE(reported == target);
        writer.kill_hard();
        int st = writer.wait();
        CHECK(WIFSIGNALED(st));
      }
      // What the child reported before it died was committed; read those reports too.
      uint64_t value = 0;
      while (read_report(report.read_end(), value)) last_reported = value;
      if (round > 0) CHECK(last_reported > previous_last);
      previous_last = last_reported;

      auto db = open_store(path);
      auto state = db->get_episode(crash_campaign, crash_op);
      REQUIRE(state.ok());
      uint64_t last = (*state)["seq"].get<uint64_t>();
      CHECK(last >= last_reported);
      auto candidates = db->list_candidates(crash_campaign, crash_op);
      REQUIRE(candidates.ok());
      REQUIRE(candidates->size() == last + 1);
      for (uint64_t i = 0; i <= last; ++i) {
        CHECK((*candidates)[i].seq == i);
        CHECK((*candidates)[i].value["kernel"].get<std::string>().size() == 4096);
        CHECK(db->get_eval_cache(cache_key("eval", i)).ok());
        CHECK(db->get_llm_cache(cache_key("llm", i)).ok());
      }
      CHECK(db->get_eval_cache(cache_key("eval", last + 1)).error().code() ==
            status_code::not_found);
      CHECK(db->get_llm_cache(cache_key("llm", last + 1)).error().code() == status_code::not_found);
      CHECK((*db->get_campaign(crash_campaign))["last"] == last);
    }
  }
}
