#include "npu/sim/device/compile_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <xxhash.h>

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

// Scanning the directory costs a stat per entry; once every this many stores is plenty.
constexpr uint64_t prune_interval = 64;

// An entry is the object followed by this trailer.
constexpr char trailer_magic[8] = {'a', 'o', 'p', 't', 'o', 'b', 'j', '1'};
constexpr size_t trailer_size = 16 + sizeof(trailer_magic);

// The raw 16 bytes of an object's XXH3-128, the trailer that marks an intact entry.
std::string object_digest(std::string_view bytes) {
  XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  std::string out(16, '\0');
  std::memcpy(out.data(), &h.high64, 8);
  std::memcpy(out.data() + 8, &h.low64, 8);
  return out;
}

std::optional<std::string> read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream data;
  data << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return std::move(data).str();
}

// Writes a new file (replacing a link or file of that name, never writing through it). The
// descriptor closes on exec: no program another thread starts meanwhile keeps it (and so keeps
// an executable written here busy).
bool write_new_file(const fs::path& path, std::string_view a, std::string_view b, fs::perms mode) {
  std::error_code ec;
  fs::remove(path, ec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return false;
  bool written = true;
  for (std::string_view part : {a, b}) {
    while (written && !part.empty()) {
      const ssize_t n = ::write(fd, part.data(), part.size());
      if (n < 0 && errno == EINTR) continue;
      written = n > 0;
      if (written) part.remove_prefix(static_cast<size_t>(n));
    }
  }
  written = (::close(fd) == 0) && written;
  if (!written) {
    fs::remove(path, ec);
    return false;
  }
  fs::permissions(path, mode, ec);
  return true;
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

std::optional<std::string> compile_cache::read_entry(const std::string& key) {
  const fs::path entry = entry_path(key);
  std::optional<std::string> bytes = read_all(entry);
  if (!bytes) return std::nullopt;
  const std::string_view data(*bytes);
  const bool intact = data.size() >= trailer_size &&
                      data.substr(data.size() - sizeof(trailer_magic)) ==
                          std::string_view(trailer_magic, sizeof(trailer_magic)) &&
                      object_digest(data.substr(0, data.size() - trailer_size)) ==
                          data.substr(data.size() - trailer_size, 16);
  std::error_code ec;
  if (!intact) {
    // Making it again replaces it; until then nobody may use it.
    fs::remove(entry, ec);
    damaged_.fetch_add(1);
    return std::nullopt;
  }
  // The modification time orders entries for pruning: a hit makes an entry recent.
  fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
  bytes->resize(bytes->size() - trailer_size);
  return bytes;
}

status compile_cache::write_entry(const std::string& key, std::string_view bytes) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec)
    return internal_error(dir_.string() + ": cannot create the object cache: " + ec.message());
  std::string trailer = object_digest(bytes);
  trailer.append(trailer_magic, sizeof(trailer_magic));
  fs::path temp = dir_ / fmt::format(".tmp-{}-{}-{}", ::getpid(), temp_counter_.fetch_add(1), key);
  if (!write_new_file(temp, bytes, trailer,
                      fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read)) {
    return internal_error(temp.string() + ": cannot write to the object cache");
  }
  fs::rename(temp, entry_path(key), ec);
  if (ec) {
    fs::remove(temp, ec);
    return internal_error(entry_path(key).string() + ": cannot store: " + ec.message());
  }
  return {};
}

bool compile_cache::fetch(const std::string& key, const fs::path& destination, bool executable) {
  const std::optional<std::string> data = read_entry(key);
  if (!data) {
    misses_.fetch_add(1);
    return false;
  }
  fs::perms mode = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  if (executable) {
    mode |= fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  }
  if (!write_new_file(destination, *data, {}, mode)) {
    misses_.fetch_add(1);
    return false;
  }
  hits_.fetch_add(1);
  return true;
}

status compile_cache::store(const std::string& key, const fs::path& object) {
  std::optional<std::string> bytes = read_all(object);
  if (!bytes) return internal_error(object.string() + ": cannot read the compiled object");
  AOPT_RETURN_IF_ERROR(write_entry(key, *bytes));
  if (stores_.fetch_add(1) % prune_interval == prune_interval - 1) prune_if_due();
  return {};
}

std::optional<std::string> compile_cache::fetch_blob(const std::string& key) {
  return read_entry(key);
}

status compile_cache::store_blob(const std::string& key, std::string_view bytes) {
  return write_entry(key, bytes);
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
  return {hits_.load(), misses_.load(), stores_.load(), damaged_.load()};
}

}  // namespace aopt::npu
