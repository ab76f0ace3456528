#include "crash_report.hpp"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <iterator>

namespace aopt::sim {
namespace {

constexpr int reported[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
constexpr const char* reported_names[] = {"SIGSEGV", "SIGBUS", "SIGFPE", "SIGILL", "SIGABRT"};

constexpr char gm_fault_line[] =
    "\naopt-gm-guard: the kernel touched simulated GM outside the traced tensor API (through a "
    "raw pointer, e.g. a GM_ADDR cast and dereferenced): the trace does not account for that "
    "work, so it cannot be priced. Read and write GM with DataCopy/DataCopyPad or "
    "GlobalTensor::GetValue/SetValue\n";
static_assert(sizeof gm_fault_line <= PIPE_BUF, "the line must reach the pipe in one piece");

// Bounds the tiling line below PIPE_BUF whatever the function's name.
constexpr size_t tiling_line_bytes = 512;
constexpr size_t tiling_name_bytes = 200;

// Initial-exec TLS of the candidate executable (the runtime is a static archive in it): reading
// it in a signal handler does not allocate.
thread_local const std::string* running_tiling_function = nullptr;

// Appends what fits; the signal handler may not allocate, so the line is built in place.
struct line_buffer {
  char bytes[tiling_line_bytes];
  size_t size = 0;
  void append(const char* text, size_t length) {
    const size_t n = length < sizeof bytes - size ? length : sizeof bytes - size;
    std::memcpy(bytes + size, text, n);
    size += n;
  }
  void append(const char* text) { append(text, std::strlen(text)); }
};

void write_tiling_line(const std::string& function, const char* signal_name) {
  line_buffer line;
  line.append("\n");
  line.append(tiling_crash_marker);
  line.append("the tiling function ");
  const size_t name = function.size() < tiling_name_bytes ? function.size() : tiling_name_bytes;
  line.append(function.data(), name);
  line.append(" was killed by ");
  line.append(signal_name);
  line.append("\n");
  [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, line.bytes, line.size);
}

void on_fatal_signal(int signal_number, siginfo_t* info, void*) {
  const std::string* tiling = running_tiling_function;
  for (size_t i = 0; i < std::size(reported); ++i) {
    if (reported[i] != signal_number) continue;
    if (tiling != nullptr) {
      write_tiling_line(*tiling, reported_names[i]);
    } else if (signal_number == SIGSEGV && info != nullptr &&
               (info->si_code == SEGV_ACCERR || info->si_code == SEGV_PKUERR)) {
      [[maybe_unused]] const ssize_t written =
          ::write(STDERR_FILENO, gm_fault_line, sizeof gm_fault_line - 1);
    }
  }
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(signal_number, &fallback, nullptr);
  // Blocked while the handler runs: it is delivered, with the default action, on return.
  ::raise(signal_number);
}

}  // namespace

void install_crash_report() {
  for (const int signal_number : reported) {
    struct sigaction action {};
    action.sa_sigaction = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO;
    ::sigaction(signal_number, &action, nullptr);
  }
}

void set_running_tiling_function(const std::string* name) noexcept {
  running_tiling_function = name;
}

}  // namespace aopt::sim
