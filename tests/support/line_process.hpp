// A child process whose stdout and stderr a test reads line by line as they come, to wait for
// the lines that mark events ("joined ... as w1", "workers join on HOST:PORT") instead of
// sleeping. Killed with SIGKILL when still running at destruction.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aopt::testing {

struct child_options {
  std::vector<std::string> env;  // "NAME=value", added to the environment
  uint64_t max_open_files = 0;   // the child's file descriptor limit (ulimit -n); 0: inherited
  // false: the child writes its stderr where the test does (a chatty daemon never blocks on a
  // pipe nobody reads); lines(stream::err) stays empty.
  bool capture_stderr = true;
};

class line_process {
 public:
  enum class stream { out, err };

  // Runs argv[0] with `argv`, `env` ("NAME=value") added to the environment.
  explicit line_process(const std::vector<std::string>& argv,
                        const std::vector<std::string>& env = {});
  line_process(const std::vector<std::string>& argv, const child_options& options);
  ~line_process();
  line_process(const line_process&) = delete;
  line_process& operator=(const line_process&) = delete;

  // Reads until a line of `s` contains `text` (lines read before are kept); that line, or
  // nullopt when the stream ended or `timeout` passed first (a zero timeout still reads what is
  // there). Each line is returned once.
  std::optional<std::string> wait_for(stream s, const std::string& text,
                                      std::chrono::seconds timeout = std::chrono::seconds(120));
  // Reads both streams to their end and reaps the child; its exit code (128 + signal number
  // when killed).
  int finish(std::chrono::seconds timeout = std::chrono::seconds(300));
  // Waits for the child without reading its streams; its wait status (WIFEXITED, ...).
  int reap();
  // Reads what arrives within `wait` (so that a chatty child never blocks on a full pipe while
  // the test watches another process).
  void drain(std::chrono::milliseconds wait) { pump(static_cast<int>(wait.count())); }
  void kill(int sig);

  const std::vector<std::string>& lines(stream s) const { return s == stream::out ? out_ : err_; }
  pid_t pid() const { return pid_; }

 private:
  // Reads what is available on either stream within `timeout_ms`; false when both ended.
  bool pump(int timeout_ms);

  pid_t pid_ = -1;
  int fds_[2] = {-1, -1};  // stdout, stderr; -1 once ended
  std::string partial_[2];
  std::vector<std::string> out_, err_;
  size_t scanned_[2] = {0, 0};
  int exit_code_ = -1;
};

}  // namespace aopt::testing
