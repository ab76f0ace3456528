#include "tiling_crash_guard.hpp"

#include <unistd.h>

#include <cstring>
#include <iterator>

namespace aopt::sim {

namespace {

constexpr int guarded[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr const char* guarded_names[] = {"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT"};
constexpr size_t message_bytes = 512;

// The lines the handler writes, formatted before the tiling function runs: a signal handler may
// only call async-signal-safe functions (write, signal, raise). Process-wide because signal
// dispositions are.
char crash_lines[std::size(guarded)]
                [message_bytes];  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
size_t crash_line_lengths[std::size(
    guarded)];  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

void on_crash(int signal_number) {
  for (size_t i = 0; i < std::size(guarded); ++i) {
    if (guarded[i] != signal_number) continue;
    [[maybe_unused]] ssize_t written =
        ::write(STDERR_FILENO, crash_lines[i], crash_line_lengths[i]);
  }
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

}  // namespace

tiling_crash_guard::tiling_crash_guard(const std::string& function_name) {
  static_assert(std::size(guarded) == guarded_count);
  const std::string name = function_name.substr(0, 200);
  for (size_t i = 0; i < std::size(guarded); ++i) {
    const std::string line = std::string("\n") + tiling_crash_marker + "the tiling function " +
                             name + " was killed by " + guarded_names[i] + "\n";
    std::memcpy(crash_lines[i], line.data(), line.size());
    crash_line_lengths[i] = line.size();
    struct sigaction action {};
    action.sa_handler = on_crash;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    ::sigaction(guarded[i], &action, &previous_[i]);
  }
}

tiling_crash_guard::~tiling_crash_guard() {
  for (size_t i = 0; i < std::size(guarded); ++i) ::sigaction(guarded[i], &previous_[i], nullptr);
}

}  // namespace aopt::sim
