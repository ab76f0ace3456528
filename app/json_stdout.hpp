// `--json` keeps stdout to exactly one JSON document for every command, failures included
// (issue 34 item 7): while the command runs, stdout (file descriptor 1, so fmt::print, std::cout
// and any library's logging alike) goes to a temporary file and stderr through a pipe that
// forwards every line to the real stderr as it comes and remembers the last ones. At the end,
// the one JSON document the command printed is written to the real stdout and anything else it
// printed there moves to stderr; a command that printed no JSON (it failed before its result)
// is answered with {"ok": false, "exit_code": N, "error": "<its last stderr line>"}.
//
// Thread-safety: one capture per process, created and finished on the main thread.
#pragma once

#include <memory>
#include <string>

namespace aopt::runtime {

// Whether argv asks for JSON (a "--json" argument before any "--").
bool wants_json(int argc, char** argv);

// The document a `--json` command answers with when it failed before printing its own.
std::string json_error_document(int exit_code, const std::string& message);

class json_stdout_capture {
 public:
  // Starts capturing; if the descriptors cannot be redirected, captures nothing (active() is
  // false) and the command prints as without --json.
  json_stdout_capture();
  ~json_stdout_capture();
  json_stdout_capture(const json_stdout_capture&) = delete;
  json_stdout_capture& operator=(const json_stdout_capture&) = delete;

  bool active() const;

  // Restores stdout and stderr and writes the one JSON document (see above). `error` (if not
  // empty) is the failure to report when the command printed no JSON, e.g. a parse error.
  void finish(int exit_code, const std::string& error = "");

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace aopt::runtime
