// Throughput of the RocksDB store: episode transitions per second (one atomic batch each, with
// the write-ahead log synced to disk as the daemon does, and without sync for comparison), and
// evaluation-cache lookups per second (hits and misses).
//
// Usage: bench_store_throughput [sync_transitions] [db_parent_dir]
// Values are sized like real ones: a candidate with a 2 KB tiling program and a 6 KB kernel, a
// 4 KB episode state, a 1 KB evaluation result.
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "base/content_hash.hpp"
#include "storage/store.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
using nlohmann::json;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

std::string eval_key(uint64_t i) {
  return aopt::content_hash({"bench-eval", std::to_string(i)});
}

// Commits `count` transitions of one episode; returns transitions per second.
double run_transitions(aopt::storage::store& db, const std::string& op, uint64_t count) {
  const std::string tiling(2048, 't'), kernel(6144, 'k'), state_padding(4096, 's');
  const json result = {{"status", "ok"}, {"latency_us", 12.5}, {"profile", std::string(900, 'p')}};
  auto start = clock_type::now();
  for (uint64_t i = 0; i < count; ++i) {
    aopt::storage::transition t;
    t.campaign = "bench";
    t.op = op;
    t.episode_state = {{"next_seq", i + 1}, {"padding", state_padding}};
    t.candidate = aopt::storage::candidate_record{
        i, {{"tiling", tiling}, {"kernel", kernel}, {"result", result}}};
    t.eval_cache.push_back({eval_key(i), result});
    auto s = db.commit_transition(t);
    if (!s.ok()) {
      std::fprintf(stderr, "commit failed: %s\n", s.to_string().c_str());
      std::exit(1);
    }
  }
  return static_cast<double>(count) / seconds_since(start);
}

// Looks up `count` random keys among the first `stored` eval keys (offset shifts them out of the
// stored range for misses); returns lookups per second.
double run_lookups(aopt::storage::store& db, uint64_t stored, uint64_t count, uint64_t offset) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<uint64_t> pick(0, stored - 1);
  uint64_t hits = 0;
  auto start = clock_type::now();
  for (uint64_t i = 0; i < count; ++i)
    if (db.get_eval_cache(eval_key(pick(rng) + offset)).ok()) ++hits;
  double rate = static_cast<double>(count) / seconds_since(start);
  if ((offset == 0) != (hits == count)) {
    std::fprintf(stderr, "unexpected hit count %llu of %llu\n",
                 static_cast<unsigned long long>(hits), static_cast<unsigned long long>(count));
    std::exit(1);
  }
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  uint64_t sync_count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 500;
  std::filesystem::path parent =
      argc > 2 ? std::filesystem::path(argv[2]) : std::filesystem::temp_directory_path();
  std::string pattern = (parent / "aopt-bench-store-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  std::filesystem::path dir = pattern;
  const uint64_t nosync_count = 10000;
  const uint64_t lookups = 200000;
  {
    aopt::storage::store_options synced;
    auto db = aopt::storage::store::open(dir / "db", synced);
    if (!db.ok()) {
      std::fprintf(stderr, "%s\n", db.error().to_string().c_str());
      return 1;
    }
    double sync_rate = run_transitions(**db, "synced", sync_count);
    std::printf("transitions/s, WAL synced:      %10.0f  (%llu transitions, %.2f ms each)\n",
                sync_rate, static_cast<unsigned long long>(sync_count), 1000.0 / sync_rate);
  }
  {
    aopt::storage::store_options unsynced;
    unsynced.sync = false;
    auto db = aopt::storage::store::open(dir / "db", unsynced);
    if (!db.ok()) {
      std::fprintf(stderr, "%s\n", db.error().to_string().c_str());
      return 1;
    }
    // Keys 0..sync_count-1 were stored by the synced run; this run overwrites and extends them.
    double nosync_rate = run_transitions(**db, "unsynced", nosync_count);
    std::printf("transitions/s, WAL not synced:  %10.0f  (%llu transitions)\n", nosync_rate,
                static_cast<unsigned long long>(nosync_count));
    double hit_rate = run_lookups(**db, nosync_count, lookups, 0);
    double miss_rate = run_lookups(**db, nosync_count, lookups, 1ULL << 40);
    std::printf("eval-cache lookups/s, hits:     %10.0f  (%llu lookups over %llu entries)\n",
                hit_rate, static_cast<unsigned long long>(lookups),
                static_cast<unsigned long long>(nosync_count));
    std::printf("eval-cache lookups/s, misses:   %10.0f\n", miss_rate);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return 0;
}
