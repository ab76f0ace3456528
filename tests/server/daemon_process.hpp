// A real `aopt serve` child process for the daemon's integration tests: started with its
// stdout on a pipe (a line_process), ready once it printed "listening on http://HOST:PORT" (it
// listens on port 0, so tests never collide), stopped with the signal a test chooses.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "server/http_client.hpp"
#include "support/line_process.hpp"

namespace aopt::testing {

class daemon_process {
 public:
  // Runs AOPT_BINARY serve <args...> with `env` ("NAME=value") added to the environment and,
  // when `max_open_files` is not 0, that file descriptor limit (ulimit -n). Its stderr goes
  // where the test's does.
  daemon_process(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                 uint64_t max_open_files = 0);

  // Reads stdout until the "listening on" line; false when the child exited first.
  bool wait_ready();
  uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Lines printed on stdout before the "listening on" line (e.g. "resumed campaign ...").
  const std::vector<std::string>& startup_lines() const { return startup_lines_; }

  // An API request to the daemon, without a token; throws std::runtime_error (which fails the
  // test) when it cannot be sent.
  server::client_response call(const std::string& method, const std::string& target,
                               const std::string& body = "") const;

  void signal(int sig) { process_.kill(sig); }
  // Waits for the child; returns its wait status. The child is SIGKILLed at destruction if it
  // was not waited for.
  int wait() { return process_.reap(); }
  pid_t pid() const { return process_.pid(); }

 private:
  line_process process_;
  uint16_t port_ = 0;
  std::vector<std::string> startup_lines_;
};

}  // namespace aopt::testing
