#include "daemon_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

#include <doctest/doctest.h>

namespace aopt::testing {

server::client_response daemon_process::call(const std::string& method, const std::string& target,
                                             const std::string& body) const {
  auto server_url = server::parse_server_url(url());
  REQUIRE(server_url.ok());
  auto res = server::http_call(*server_url, method, target, body, "");
  REQUIRE_MESSAGE(res.ok(), res.error().to_string());
  return *res;
}

daemon_process::daemon_process(const std::vector<std::string>& args,
                               const std::vector<std::string>& env, uint64_t max_open_files) {
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  std::vector<std::string> argv = {AOPT_BINARY, "serve"};
  argv.insert(argv.end(), args.begin(), args.end());
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork");
  if (pid_ == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
    if (max_open_files != 0) {
      const rlimit files{max_open_files, max_open_files};
      if (setrlimit(RLIMIT_NOFILE, &files) != 0) _exit(126);
    }
    std::vector<char*> cargs;
    for (const std::string& a : argv) cargs.push_back(const_cast<char*>(a.c_str()));
    cargs.push_back(nullptr);
    execv(cargs[0], cargs.data());
    _exit(127);
  }
  close(out_pipe[1]);
  out_ = fdopen(out_pipe[0], "r");
}

daemon_process::~daemon_process() {
  if (!reaped_) {
    kill(pid_, SIGKILL);
    wait();
  }
  if (out_) std::fclose(out_);
}

bool daemon_process::wait_ready() {
  const std::string marker = "listening on http://";
  char* line = nullptr;
  size_t capacity = 0;
  bool ready = false;
  while (getline(&line, &capacity, out_) > 0) {
    std::string text(line);
    const size_t at = text.find(marker);
    if (at == std::string::npos) {
      lines_.push_back(text);
      continue;
    }
    const size_t colon = text.rfind(':');
    port_ = static_cast<uint16_t>(std::strtoul(text.c_str() + colon + 1, nullptr, 10));
    ready = port_ != 0;
    break;
  }
  free(line);
  return ready;
}

void daemon_process::signal(int sig) {
  kill(pid_, sig);
}

int daemon_process::wait() {
  int status = 0;
  waitpid(pid_, &status, 0);
  reaped_ = true;
  return status;
}

}  // namespace aopt::testing
