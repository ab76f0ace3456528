#include "base/file_beneath.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "base/unique_fd.hpp"

namespace aopt {
namespace fs = std::filesystem;

namespace {

// The error for a component `name` (inside the folder `parent_fd`) that could not be opened with
// O_NOFOLLOW; `shown` is the path named in messages.
status open_error(int err, int parent_fd, const std::string& name, const std::string& shown) {
  struct stat st {};
  if ((err == ELOOP || err == ENOTDIR || err == EMLINK) &&
      ::fstatat(parent_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
    std::vector<char> target(4096);
    const ssize_t n = ::readlinkat(parent_fd, name.c_str(), target.data(), target.size() - 1);
    const std::string to = n >= 0 ? std::string(target.data(), static_cast<size_t>(n)) : "?";
    return failed_precondition(fmt::format(
        "{} -> {}: a symbolic link, refused (files are read only from inside the folder)", shown,
        to));
  }
  if (err == ENOENT) return not_found(shown + ": no such file");
  if (err == ENOTDIR) return not_found(shown + ": a component is not a directory");
  return internal_error(shown + ": " + std::strerror(err));
}

}  // namespace

result<std::string> read_file_beneath(const fs::path& dir, const std::string& relative,
                                      uint64_t max_bytes) {
  const std::string shown = (dir / relative).string();
  std::vector<std::string> parts;
  for (const fs::path& part : fs::path(relative)) {
    if (part == "..") return invalid_argument(shown + ": '..' leaves the folder");
    if (part.empty() || part == "." || part == "/") continue;
    parts.push_back(part.string());
  }
  if (relative.empty() || relative.front() == '/' || parts.empty()) {
    return invalid_argument("'" + relative + "' is not a relative path to a file");
  }
  unique_fd cur(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (cur.get() < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) return not_found(dir.string() + ": no such directory");
    return internal_error(dir.string() + ": " + std::strerror(err));
  }
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    unique_fd next(
        ::openat(cur.get(), parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (next.get() < 0) return open_error(errno, cur.get(), parts[i], shown);
    cur = std::move(next);
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below anyway.
  unique_fd file(::openat(cur.get(), parts.back().c_str(),
                          O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (file.get() < 0) return open_error(errno, cur.get(), parts.back(), shown);
  struct stat st {};
  if (::fstat(file.get(), &st) != 0) return internal_error(shown + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return invalid_argument(shown + ": not a regular file");
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return invalid_argument(
        fmt::format("{}: {} bytes, more than the {} allowed", shown, st.st_size, max_bytes));
  }
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(file.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return internal_error(shown + ": read failed: " + std::strerror(errno));
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    // The file may grow while it is read.
    if (text.size() > max_bytes) {
      return invalid_argument(fmt::format("{}: more than the {} bytes allowed", shown, max_bytes));
    }
  }
  return text;
}

}  // namespace aopt
