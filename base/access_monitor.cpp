#include "base/access_monitor.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstring>
#include <filesystem>
#include <utility>

namespace aopt {

namespace fs = std::filesystem;

namespace {

// A program that loops over forbidden paths gets its first few reported; that names it.
constexpr size_t max_denials = 16;

// Reads the NUL-terminated string at `address` in `pid`, page by page (a string may end just
// before an unmapped page).
bool read_remote_string(pid_t pid, uint64_t address, std::string& out) {
  out.clear();
  char chunk[512];
  while (out.size() < PATH_MAX) {
    const uint64_t to_page_end = 4096 - (address % 4096);
    const size_t want = static_cast<size_t>(std::min<uint64_t>(sizeof chunk, to_page_end));
    iovec local{chunk, want};
    iovec remote{reinterpret_cast<void*>(address), want};
    ssize_t n = ::process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) return false;
    const char* end = static_cast<const char*>(std::memchr(chunk, '\0', static_cast<size_t>(n)));
    if (end != nullptr) {
      out.append(chunk, static_cast<size_t>(end - chunk));
      return true;
    }
    out.append(chunk, static_cast<size_t>(n));
    address += static_cast<uint64_t>(n);
  }
  return false;
}

bool read_remote(pid_t pid, uint64_t address, void* out, size_t size) {
  iovec local{out, size};
  iovec remote{reinterpret_cast<void*>(address), size};
  return ::process_vm_readv(pid, &local, 1, &remote, 1, 0) == static_cast<ssize_t>(size);
}

std::string read_link(const std::string& path) {
  std::error_code ec;
  fs::path target = fs::read_symlink(path, ec);
  return ec ? std::string() : target.string();
}

bool beneath(const std::string& path, const std::string& dir) {
  if (dir.empty()) return false;
  std::string d = dir.back() == '/' ? dir.substr(0, dir.size() - 1) : dir;
  return path == d ||
         (path.size() > d.size() && path.compare(0, d.size(), d) == 0 && path[d.size()] == '/');
}

// The pid in "/proc/<pid>/...", or -1.
long proc_pid_of(const std::string& path) {
  const std::string prefix = "/proc/";
  if (path.compare(0, prefix.size(), prefix) != 0) return -1;
  size_t end = prefix.size();
  while (end < path.size() && std::isdigit(static_cast<unsigned char>(path[end]))) ++end;
  if (end == prefix.size() || (end < path.size() && path[end] != '/')) return -1;
  return std::stol(path.substr(prefix.size(), end - prefix.size()));
}

std::vector<std::string> canonical_dirs(std::vector<std::string> dirs) {
  for (auto& d : dirs) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(d, ec);
    if (!ec) d = c.string();
  }
  return dirs;
}

}  // namespace

access_monitor::access_monitor(int fd, pid_t pid, std::vector<std::string> readable,
                               std::vector<std::string> writable)
    : fd_(fd),
      pid_(pid),
      readable_(canonical_dirs(std::move(readable))),
      writable_(canonical_dirs(std::move(writable))) {
  seccomp_notif_sizes sizes{};
  if (::syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
    sizes = {sizeof(seccomp_notif), sizeof(seccomp_notif_resp), sizeof(seccomp_data)};
  }
  request_.resize(std::max<size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
  response_.resize(std::max<size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
}

access_monitor::access_monitor(access_monitor&& other) noexcept {
  *this = std::move(other);
}

access_monitor& access_monitor::operator=(access_monitor&& other) noexcept {
  if (this != &other) {
    close_fd();
    fd_ = std::exchange(other.fd_, -1);
    pid_ = other.pid_;
    readable_ = std::move(other.readable_);
    writable_ = std::move(other.writable_);
    denials_ = std::move(other.denials_);
    request_ = std::move(other.request_);
    response_ = std::move(other.response_);
  }
  return *this;
}

access_monitor::~access_monitor() {
  close_fd();
}

void access_monitor::close_fd() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool access_monitor::handle_one() {
  if (fd_ < 0) return false;
  std::fill(request_.begin(), request_.end(), 0);
  auto* request = reinterpret_cast<seccomp_notif*>(request_.data());
  if (::ioctl(fd_, SECCOMP_IOCTL_NOTIF_RECV, request) != 0) return false;

  const seccomp_data& call = request->data;
  const pid_t caller = static_cast<pid_t>(request->pid);
  int dirfd = AT_FDCWD;
  uint64_t path_address = 0;
  uint64_t flags = O_RDONLY;
  switch (call.nr) {
    case SYS_open:
      path_address = call.args[0];
      flags = call.args[1];
      break;
    case SYS_openat:
      dirfd = static_cast<int>(call.args[0]);
      path_address = call.args[1];
      flags = call.args[2];
      break;
    case SYS_openat2: {
      dirfd = static_cast<int>(call.args[0]);
      path_address = call.args[1];
      open_how how{};
      if (call.args[3] >= sizeof(how.flags)) read_remote(caller, call.args[2], &how.flags, 8);
      flags = how.flags;
      break;
    }
    case SYS_creat:
    case SYS_truncate:
      path_address = call.args[0];
      flags = O_WRONLY | O_TRUNC;
      break;
    default:
      break;
  }
  std::string path;
  bool have_path = path_address != 0 && read_remote_string(caller, path_address, path);
  // The call waits until answered: read everything first, then check that it still waits
  // (the program may have been killed meanwhile, and its pid reused).
  std::string base;
  if (have_path && !path.empty() && path[0] != '/') {
    base = read_link(dirfd == AT_FDCWD
                         ? "/proc/" + std::to_string(caller) + "/cwd"
                         : "/proc/" + std::to_string(caller) + "/fd/" + std::to_string(dirfd));
  }
  const bool valid = ::ioctl(fd_, SECCOMP_IOCTL_NOTIF_ID_VALID, &request->id) == 0;

  auto* response = reinterpret_cast<seccomp_notif_resp*>(response_.data());
  std::fill(response_.begin(), response_.end(), 0);
  response->id = request->id;
  response->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
  // The decision is Landlock's: the call goes on either way.
  ::ioctl(fd_, SECCOMP_IOCTL_NOTIF_SEND, response);
  if (!valid || !have_path) return true;

  // "/proc/self" names the program's own entry, which the monitor reaches as /proc/<pid>.
  for (const char* self : {"/proc/self", "/proc/thread-self"}) {
    if (beneath(path, self)) path = "/proc/" + std::to_string(caller) + path.substr(strlen(self));
  }
  fs::path resolved = base.empty() ? fs::path(path) : fs::path(base) / path;
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(resolved, ec);
  const std::string where = (ec ? resolved.lexically_normal() : canonical).string();

  const bool write = (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
  auto under_any = [&](const std::vector<std::string>& dirs) {
    return std::any_of(dirs.begin(), dirs.end(),
                       [&](const std::string& d) { return beneath(where, d); });
  };
  if (under_any(writable_)) return true;
  const long proc_pid = proc_pid_of(where);
  std::string kind;
  if (proc_pid >= 0 && proc_pid != caller && proc_pid != pid_) {
    kind = "process";
  } else if (write) {
    kind = "write";
  } else if (!under_any(readable_) && proc_pid < 0) {
    kind = "read";
  }
  if (!kind.empty() && denials_.size() < max_denials) denials_.push_back({kind, where});
  return true;
}

}  // namespace aopt
