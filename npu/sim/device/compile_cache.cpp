#include "npu/sim/device/compile_cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <xxhash.h>

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

// Scanning the directory costs a stat per entry; once every this many stores is plenty.
constexpr uint64_t prune_interval = 64;

// Links `from` to `to`, copying when a hard link is impossible (another file system).
bool link_or_copy(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::remove(to, ec);
  fs::create_hard_link(from, to, ec);
  if (!ec) return true;
  return fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec) && !ec;
}

}  // namespace

compile_cache::compile_cache(fs::path dir, uint64_t max_bytes)
    : dir_(std::move(dir)), max_bytes_(max_bytes) {}

std::string compile_cache::key_of(std::initializer_list<std::string_view> parts) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_128bits_reset(state);
  for (std::string_view part : parts) {
    uint64_t size = part.size();
    XXH3_128bits_update(state, &size, sizeof(size));
    XXH3_128bits_update(state, part.data(), part.size());
  }
  XXH128_hash_t h = XXH3_128bits_digest(state);
  XXH3_freeState(state);
  return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

fs::path compile_cache::entry_path(const std::string& key) const {
  return dir_ / (key + ".o");
}

bool compile_cache::fetch(const std::string& key, const fs::path& destination) {
  fs::path entry = entry_path(key);
  std::error_code ec;
  if (!fs::exists(entry, ec) || !link_or_copy(entry, destination)) {
    misses_.fetch_add(1);
    return false;
  }
  // The modification time orders entries for pruning: a hit makes an entry recent.
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
  hits_.fetch_add(1);
  return true;
}

status compile_cache::store(const std::string& key, const fs::path& object) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec)
    return internal_error(dir_.string() + ": cannot create the object cache: " + ec.message());
  fs::path temp = dir_ / fmt::format(".tmp-{}-{}-{}", ::getpid(), temp_counter_.fetch_add(1), key);
  if (!link_or_copy(object, temp)) {
    return internal_error(temp.string() + ": cannot write to the object cache");
  }
  fs::rename(temp, entry_path(key), ec);
  if (ec) {
    fs::remove(temp, ec);
    return internal_error(entry_path(key).string() + ": cannot store: " + ec.message());
  }
  if (stores_.fetch_add(1) % prune_interval == prune_interval - 1) prune_if_due();
  return {};
}

void compile_cache::prune_if_due() {
  struct entry {
    fs::path path;
    fs::file_time_type time;
    uint64_t bytes;
  };
  std::vector<entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    if (e.path().extension() != ".o") continue;
    std::error_code file_ec;
    uint64_t bytes = e.file_size(file_ec);
    auto time = e.last_write_time(file_ec);
    if (file_ec) continue;
    entries.push_back({e.path(), time, bytes});
    total += bytes;
  }
  if (total <= max_bytes_) return;
  std::sort(entries.begin(), entries.end(),
            [](const entry& a, const entry& b) { return a.time < b.time; });
  // Down to 80 % so that the next few stores do not prune again.
  const uint64_t target = max_bytes_ / 5 * 4;
  for (const auto& e : entries) {
    if (total <= target) break;
    fs::remove(e.path, ec);
    total -= e.bytes;
  }
}

compile_cache_stats compile_cache::stats() const {
  return {hits_.load(), misses_.load(), stores_.load()};
}

}  // namespace aopt::npu
