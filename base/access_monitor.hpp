// Names what a sandboxed program tried to open outside its sandbox. Landlock refuses such an
// access with EACCES, which the program sees and the supervisor does not; a candidate that
// tries to truncate the shared compile cache or write /proc/<parent>/mem must end non-ok with
// a reason naming the attempt, so its file opens (open, openat, openat2, creat, truncate) are
// reported to this monitor (seccomp user notification) before they run, classified against
// the sandbox's directories, and let through to Landlock, which decides.
//
// The monitor only observes: the path is read from the program's memory while the call waits,
// so a program racing its own threads can mislabel a call, never get one past Landlock.
//
// Thread-safety: one thread (the subprocess's waiter) uses a monitor.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace aopt {

struct access_denial {
  // "write": opened for writing (or created, truncated) outside the writable directories;
  // "process": another process's /proc entry (its memory, environment, descriptors);
  // "read": read outside the readable directories (refused, but harmless on its own).
  std::string kind;
  std::string path;  // as resolved for the program: absolute, normalised
};

class access_monitor {
 public:
  // Takes ownership of the seccomp listener `fd` of the program `pid`. `readable` and
  // `writable` are the sandbox's directories (system directories included).
  access_monitor(int fd, pid_t pid, std::vector<std::string> readable,
                 std::vector<std::string> writable);
  access_monitor(access_monitor&& other) noexcept;
  access_monitor& operator=(access_monitor&& other) noexcept;
  access_monitor(const access_monitor&) = delete;
  access_monitor& operator=(const access_monitor&) = delete;
  ~access_monitor();

  // Poll it for POLLIN; POLLHUP once the program is gone.
  int fd() const { return fd_; }
  // Answers the waiting notification: records a denial when the access is outside the
  // sandbox, then lets the call continue to Landlock. Returns false when none could be read
  // (the program ended), which is not an error.
  bool handle_one();
  const std::vector<access_denial>& denials() const { return denials_; }

 private:
  void close_fd() noexcept;

  int fd_ = -1;
  pid_t pid_ = -1;
  std::vector<std::string> readable_;
  std::vector<std::string> writable_;
  std::vector<access_denial> denials_;
  std::vector<char> request_;   // struct seccomp_notif, as large as the kernel's
  std::vector<char> response_;  // struct seccomp_notif_resp
};

}  // namespace aopt
