#include "base/scratch_dir.hpp"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include "base/sandbox.hpp"

namespace aopt {

namespace {

constexpr const char* owner_suffix = ".owner";

std::filesystem::path owner_file_of(const std::filesystem::path& dir) {
  return dir.parent_path() / ("." + dir.filename().string() + owner_suffix);
}
// Below this much free space a build's objects (hundreds of KiB each) and the candidate's
// outputs may not fit: the disk is full for our purposes.
constexpr uint64_t min_free_bytes = 16ull << 20;
// Descriptors a compile or a run needs at least (pipes, the pidfd, sources, objects).
constexpr int min_free_descriptors = 16;

status os_status(int err, std::string what) {
  what += ": ";
  what += std::strerror(err);
  if (err == EMFILE || err == ENFILE || err == ENOSPC || err == EDQUOT || err == ENOMEM) {
    return {status_code::resource_exhausted, std::move(what)};
  }
  return internal_error(std::move(what));
}

}  // namespace

result<scratch_dir> scratch_dir::create(const std::filesystem::path& parent,
                                        const std::string& prefix) {
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) return os_status(ec.value(), parent.string() + ": cannot create directory");
  std::string pattern = (parent / (prefix + "XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) return os_status(errno, pattern + ": mkdtemp failed");
  scratch_dir dir;
  dir.path_ = pattern;
  // Locked under a temporary name, then renamed: sweep() only ever sees a locked owner file
  // of a live directory.
  dir.lock_path_ = owner_file_of(dir.path_);
  std::string temp_lock = dir.lock_path_.string() + ".new";
  dir.lock_fd_ =
      ::open(temp_lock.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (dir.lock_fd_ < 0) return os_status(errno, temp_lock + ": cannot create");
  if (::flock(dir.lock_fd_, LOCK_EX | LOCK_NB) != 0) return os_status(errno, temp_lock + ": flock");
  if (::rename(temp_lock.c_str(), dir.lock_path_.c_str()) != 0) {
    int err = errno;
    ::unlink(temp_lock.c_str());
    return os_status(err, dir.lock_path_.string() + ": rename");
  }
  return dir;
}

uint64_t scratch_dir::sweep(const std::filesystem::path& parent) {
  uint64_t removed = 0;
  std::error_code ec;
  std::vector<std::filesystem::path> owner_files;
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t suffix = std::char_traits<char>::length(owner_suffix);
    if (name.size() > suffix + 1 && name[0] == '.' &&
        name.compare(name.size() - suffix, suffix, owner_suffix) == 0) {
      owner_files.push_back(entry.path());
    }
  }
  for (const auto& owner : owner_files) {
    int fd = ::open(owner.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) continue;
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
      // The owner is dead. Holding its lock while removing keeps another sweeper off.
      std::string name = owner.filename().string();
      std::filesystem::path dir =
          parent / name.substr(1, name.size() - 1 - std::char_traits<char>::length(owner_suffix));
      std::error_code remove_ec;
      std::filesystem::remove_all(dir, remove_ec);
      if (!remove_ec) {
        ++removed;
        ::unlink(owner.c_str());
      }
    }
    ::close(fd);
  }
  return removed;
}

scratch_dir::scratch_dir(scratch_dir&& other) noexcept {
  *this = std::move(other);
}

scratch_dir& scratch_dir::operator=(scratch_dir&& other) noexcept {
  if (this != &other) {
    remove();
    path_ = std::exchange(other.path_, {});
    lock_path_ = std::exchange(other.lock_path_, {});
    lock_fd_ = std::exchange(other.lock_fd_, -1);
    keep_ = other.keep_;
  }
  return *this;
}

scratch_dir::~scratch_dir() {
  remove();
}

void scratch_dir::keep() {
  keep_ = true;
  if (!lock_path_.empty()) ::unlink(lock_path_.c_str());
}

void scratch_dir::remove() noexcept {
  if (!path_.empty() && !keep_) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  // Unlinked, then unlocked, after the removal: a sweep never sees a live directory as dead.
  if (!lock_path_.empty() && !keep_) ::unlink(lock_path_.c_str());
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
  path_.clear();
  lock_path_.clear();
}

status check_scratch_usable(const std::filesystem::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return os_status(errno, dir.string());
  if (!S_ISDIR(st.st_mode)) return failed_precondition(dir.string() + ": not a directory");
  // Owned by aopt, or handed over to the identity its sandboxed children run as.
  const std::optional<sandbox_identity> sandboxed = untrusted_identity();
  const bool owned = st.st_uid == ::geteuid() || (sandboxed && st.st_uid == sandboxed->uid);
  if (!owned || (st.st_mode & S_IRWXU) != S_IRWXU) {
    return failed_precondition(dir.string() +
                               ": not readable, writable and searchable by its owner (aopt)");
  }
  return check_machine_usable(dir);
}

uint64_t free_bytes(const std::filesystem::path& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return 0;
  return static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
}

uint64_t directory_bytes(const std::filesystem::path& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator
           it(dir, std::filesystem::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0) bytes += static_cast<uint64_t>(st.st_blocks) * 512;
  }
  return bytes;
}

status check_machine_usable(const std::filesystem::path& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return os_status(errno, dir.string() + ": statvfs");
  uint64_t free_bytes = static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize;
  if (free_bytes < min_free_bytes) {
    return {status_code::resource_exhausted, dir.string() + ": the file system is full (" +
                                                 std::to_string(free_bytes >> 10) + " KiB free)"};
  }
  // Descriptors: the process's own limit (EMFILE) and the system's (ENFILE).
  std::vector<int> probes;
  int err = 0;
  for (int i = 0; i < min_free_descriptors; ++i) {
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      err = errno;
      break;
    }
    probes.push_back(fd);
  }
  for (int fd : probes) ::close(fd);
  if (err != 0) return os_status(err, "opening descriptors");
  return {};
}

}  // namespace aopt
