#include "app/json_stdout.hpp"
#include "base/text_trim.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <iostream>
#include <thread>

#include <nlohmann/json.hpp>

namespace aopt::runtime {

namespace {

constexpr size_t remembered_stderr_lines = 8;

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

bool wants_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    if (std::strcmp(argv[i], "--json") == 0) return true;
  }
  return false;
}

std::string json_error_document(int exit_code, const std::string& message) {
  return nlohmann::json{{"ok", false}, {"exit_code", exit_code}, {"error", message}}.dump(2);
}

struct json_stdout_capture::state {
  int saved_stdout = -1;
  int saved_stderr = -1;
  std::FILE* captured = nullptr;  // what the command wrote to stdout
  int pipe_read = -1;
  std::thread forwarder;
  std::deque<std::string> last_lines;  // written by the forwarder until it is joined
};

json_stdout_capture::json_stdout_capture() : state_(std::make_unique<state>()) {
  state& s = *state_;
  std::fflush(stdout);
  std::cout.flush();
  s.captured = std::tmpfile();
  int fds[2] = {-1, -1};
  if (s.captured == nullptr || ::pipe2(fds, O_CLOEXEC) != 0) {
    if (s.captured != nullptr) std::fclose(s.captured);
    state_.reset();
    return;
  }
  s.saved_stdout = ::dup(STDOUT_FILENO);
  s.saved_stderr = ::dup(STDERR_FILENO);
  ::dup2(::fileno(s.captured), STDOUT_FILENO);
  ::dup2(fds[1], STDERR_FILENO);
  ::close(fds[1]);
  s.pipe_read = fds[0];
  // Forwards stderr as it comes (a long run's progress stays live) and keeps its last lines.
  s.forwarder = std::thread([&s] {
    std::string partial;
    char buffer[4096];
    for (;;) {
      const ssize_t n = ::read(s.pipe_read, buffer, sizeof(buffer));
      if (n <= 0) break;
      write_all(s.saved_stderr, std::string(buffer, static_cast<size_t>(n)));
      partial.append(buffer, static_cast<size_t>(n));
      for (size_t nl; (nl = partial.find('\n')) != std::string::npos;) {
        std::string line = trim(partial.substr(0, nl));
        partial.erase(0, nl + 1);
        if (line.empty()) continue;
        s.last_lines.push_back(std::move(line));
        if (s.last_lines.size() > remembered_stderr_lines) s.last_lines.pop_front();
      }
    }
    if (!trim(partial).empty()) s.last_lines.push_back(trim(partial));
  });
}

json_stdout_capture::~json_stdout_capture() {
  if (state_) finish(0);
}

bool json_stdout_capture::active() const {
  return state_ != nullptr;
}

void json_stdout_capture::finish(int exit_code, const std::string& error) {
  if (!state_) return;
  std::unique_ptr<state> owned = std::move(state_);
  state& s = *owned;
  std::fflush(stdout);
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stderr);
  ::dup2(s.saved_stdout, STDOUT_FILENO);
  ::dup2(s.saved_stderr, STDERR_FILENO);  // closes the pipe's last write end: the forwarder ends
  s.forwarder.join();
  ::close(s.pipe_read);

  std::string out;
  std::rewind(s.captured);
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), s.captured)) > 0;)
    out.append(buffer, n);
  std::fclose(s.captured);

  // The command's document: the whole output, else the longest tail that starts a line with
  // '{' or '[' and parses (text printed before it moves to stderr).
  std::string document;
  std::string stray;
  if (nlohmann::json::accept(out)) {
    document = trim(out);
  } else {
    for (size_t at = 0; at < out.size(); at = out.find('\n', at) + 1) {
      if ((out[at] == '{' || out[at] == '[') && nlohmann::json::accept(out.substr(at))) {
        document = trim(out.substr(at));
        stray = out.substr(0, at);
        break;
      }
      if (out.find('\n', at) == std::string::npos) break;
    }
    if (document.empty()) stray = out;
  }
  if (!trim(stray).empty()) {
    write_all(STDERR_FILENO, stray.back() == '\n' ? stray : stray + "\n");
  }
  if (document.empty()) {
    std::string message = error;
    if (message.empty() && !s.last_lines.empty()) message = s.last_lines.back();
    if (message.empty()) message = exit_code == 0 ? "the command printed no JSON" : "failed";
    document = json_error_document(exit_code, message);
  }
  write_all(STDOUT_FILENO, document + "\n");
  ::close(s.saved_stdout);
  ::close(s.saved_stderr);
}

}  // namespace aopt::runtime
