#include "support/line_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace aopt::testing {

line_process::line_process(const std::vector<std::string>& argv,
                           const std::vector<std::string>& env)
    : line_process(argv, child_options{env}) {}

line_process::line_process(const std::vector<std::string>& argv, const child_options& options) {
  int out_pipe[2], err_pipe[2] = {-1, -1};
  if (pipe2(out_pipe, O_CLOEXEC) != 0 ||
      (options.capture_stderr && pipe2(err_pipe, O_CLOEXEC) != 0))
    throw std::runtime_error("pipe2");
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork");
  if (pid_ == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    if (options.capture_stderr) dup2(err_pipe[1], STDERR_FILENO);
    for (const std::string& e : options.env) putenv(const_cast<char*>(e.c_str()));
    if (options.max_open_files != 0) {
      const rlimit files{options.max_open_files, options.max_open_files};
      if (setrlimit(RLIMIT_NOFILE, &files) != 0) _exit(126);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out_pipe[1]);
  if (options.capture_stderr) close(err_pipe[1]);
  fds_[0] = out_pipe[0];
  fds_[1] = err_pipe[0];
}

line_process::~line_process() {
  if (exit_code_ < 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  for (int fd : fds_) {
    if (fd >= 0) close(fd);
  }
}

bool line_process::pump(int timeout_ms) {
  pollfd p[2];
  nfds_t n = 0;
  int which[2];
  for (int i = 0; i < 2; ++i) {
    if (fds_[i] < 0) continue;
    p[n] = {fds_[i], POLLIN, 0};
    which[n++] = i;
  }
  if (n == 0) return false;
  if (poll(p, n, timeout_ms) <= 0) return true;
  for (nfds_t k = 0; k < n; ++k) {
    if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    const int i = which[k];
    char buf[4096];
    const ssize_t got = read(fds_[i], buf, sizeof buf);
    if (got <= 0) {
      close(fds_[i]);
      fds_[i] = -1;
      if (!partial_[i].empty()) (i == 0 ? out_ : err_).push_back(partial_[i]);
      partial_[i].clear();
      continue;
    }
    partial_[i].append(buf, static_cast<size_t>(got));
    size_t nl;
    while ((nl = partial_[i].find('\n')) != std::string::npos) {
      (i == 0 ? out_ : err_).push_back(partial_[i].substr(0, nl));
      partial_[i].erase(0, nl + 1);
    }
  }
  return true;
}

std::optional<std::string> line_process::wait_for(stream s, const std::string& text,
                                                  std::chrono::seconds timeout) {
  const int i = s == stream::out ? 0 : 1;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool pumped = false;
  for (;;) {
    const std::vector<std::string>& got = i == 0 ? out_ : err_;
    for (; scanned_[i] < got.size(); ++scanned_[i]) {
      if (got[scanned_[i]].find(text) != std::string::npos) return got[scanned_[i]++];
    }
    if (fds_[i] < 0 || (pumped && std::chrono::steady_clock::now() > deadline)) return std::nullopt;
    pump(pumped ? 100 : 0);
    pumped = true;
  }
}

int line_process::finish(std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pump(100) && std::chrono::steady_clock::now() < deadline) {
  }
  if (fds_[0] >= 0 || fds_[1] >= 0) return -1;
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return exit_code_;
}

int line_process::reap() {
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return status;
}

void line_process::kill(int sig) {
  ::kill(pid_, sig);
}

}  // namespace aopt::testing
