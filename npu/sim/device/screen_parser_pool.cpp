#include "npu/sim/device/screen_parser_pool.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "base/status.hpp"
#include "base/subprocess.hpp"
#include "base/unique_fd.hpp"

namespace aopt::npu {

namespace fs = std::filesystem;

namespace {

// A request or answer larger than this is not the screen's (a unit's request is tens of KiB).
constexpr uint64_t max_frame_bytes = 256ull << 20;

bool send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool receive_all(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::recv(fd, data, size, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool send_frame(int fd, const std::string& text) {
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(text.size() >> (8 * i));
  return send_all(fd, reinterpret_cast<const char*>(length), sizeof length) &&
         send_all(fd, text.data(), text.size());
}

// False at the end of the stream or on a malformed length.
bool receive_frame(int fd, std::string& text) {
  unsigned char length[8];
  if (!receive_all(fd, reinterpret_cast<char*>(length), sizeof length)) return false;
  uint64_t size = 0;
  for (int i = 0; i < 8; ++i) size |= static_cast<uint64_t>(length[i]) << (8 * i);
  if (size > max_frame_bytes) return false;
  text.resize(size);
  return receive_all(fd, text.data(), text.size());
}

// Gives the calling process `seconds` of CPU time from now: RLIMIT_CPU's soft limit (SIGXCPU).
void arm_cpu_time(uint64_t seconds) {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const double used = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                      static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  rlimit limit{};
  ::getrlimit(RLIMIT_CPU, &limit);
  rlim_t soft = static_cast<rlim_t>(std::ceil(used)) + seconds;
  if (limit.rlim_max != RLIM_INFINITY && soft > limit.rlim_max) soft = limit.rlim_max;
  limit.rlim_cur = soft;
  ::setrlimit(RLIMIT_CPU, &limit);
}

uint64_t resident_bytes(pid_t pid) {
  std::ifstream statm("/proc/" + std::to_string(pid) + "/statm");
  uint64_t size = 0;
  uint64_t resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

int serve_screen_requests(int socket_fd, uint64_t cpu_seconds,
                          std::string (*judge)(const std::string& request)) {
  std::string request;
  while (receive_frame(socket_fd, request)) {
    arm_cpu_time(cpu_seconds);
    if (!send_frame(socket_fd, judge(request))) return 1;
  }
  return 0;
}

struct screen_parser_pool::state {
  // One parser process and the pool's end of its socket.
  struct process {
    subprocess child;
    unique_fd socket;
    uint32_t served = 0;
  };
  using launch = std::packaged_task<result<std::unique_ptr<process>>()>;

  fs::path program;
  screen_parser_limits limits;

  std::mutex mutex;  // guards the members up to the next blank line
  std::vector<std::unique_ptr<process>> idle;
  uint64_t started = 0;

  std::mutex launch_mutex;  // guards the members up to the next blank line
  std::condition_variable launch_ready;
  std::deque<launch> launches;
  bool stopping = false;
  std::thread launcher;  // starts every process (see the header)

  void run_launcher() {
    for (;;) {
      launch next;
      {
        std::unique_lock<std::mutex> lock(launch_mutex);
        launch_ready.wait(lock, [&] { return stopping || !launches.empty(); });
        if (launches.empty()) return;
        next = std::move(launches.front());
        launches.pop_front();
      }
      next();
    }
  }

  result<std::unique_ptr<process>> start_process() {
    int ends[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      return internal_error(std::string("socketpair: ") + std::strerror(errno));
    }
    unique_fd ours(ends[0]);
    unique_fd theirs(ends[1]);
    subprocess_options o;
    o.argv = {program.string(), std::to_string(limits.cpu_seconds)};
    o.pass_fds = {theirs.get()};
    o.limits.address_space_bytes = limits.address_space_bytes;
    result<subprocess> child = subprocess::start(o);
    if (!child.ok()) return child.error();
    auto p = std::make_unique<process>(process{std::move(child).value(), std::move(ours), 0});
    std::lock_guard<std::mutex> lock(mutex);
    ++started;
    return p;
  }

  // A process started on the launcher thread.
  result<std::unique_ptr<process>> launch_process() {
    launch task([this] { return start_process(); });
    std::future<result<std::unique_ptr<process>>> started_process = task.get_future();
    {
      std::lock_guard<std::mutex> lock(launch_mutex);
      launches.push_back(std::move(task));
    }
    launch_ready.notify_one();
    return started_process.get();
  }

  std::unique_ptr<process> take_idle() {
    std::lock_guard<std::mutex> lock(mutex);
    if (idle.empty()) return nullptr;
    std::unique_ptr<process> p = std::move(idle.back());
    idle.pop_back();
    return p;
  }

  void give_back(std::unique_ptr<process> p) {
    if (p->served >= limits.units_per_process ||
        resident_bytes(p->child.pid()) > limits.resident_bytes_to_retire) {
      return;  // retired: its destructor ends it
    }
    std::lock_guard<std::mutex> lock(mutex);
    idle.push_back(std::move(p));
  }

  // The answer for a process that ended without answering.
  parser_answer ended(process& p) const {
    const subprocess_result r = p.child.wait();
    parser_answer a;
    const bool out_of_memory = !r.exited && r.term_signal == SIGABRT &&
                               (r.stderr_text.find("out of memory") != std::string::npos ||
                                r.stderr_text.find("bad_alloc") != std::string::npos);
    // RLIMIT_CPU's hard limit stays where it was, so SIGKILL is never the unit's bound: it came
    // from outside (the OOM killer, an operator), and is a failure of the process.
    if (out_of_memory || (!r.exited && r.term_signal == SIGXCPU)) {
      a.outcome = parser_answer::kind::past_bounds;
      return a;
    }
    a.failure = r.describe();
    return a;
  }
};

screen_parser_pool::screen_parser_pool(fs::path program, screen_parser_limits limits)
    : state_(std::make_unique<state>()) {
  state_->program = std::move(program);
  state_->limits = limits;
  state_->launcher = std::thread([s = state_.get()] { s->run_launcher(); });
}

screen_parser_pool::~screen_parser_pool() {
  {
    std::lock_guard<std::mutex> lock(state_->launch_mutex);
    state_->stopping = true;
  }
  state_->launch_ready.notify_one();
  state_->launcher.join();
  state_->idle.clear();
}

parser_answer screen_parser_pool::parse(const std::string& request) {
  for (;;) {
    std::unique_ptr<state::process> p = state_->take_idle();
    const bool reused = p != nullptr;
    if (!reused) {
      result<std::unique_ptr<state::process>> started = state_->launch_process();
      if (!started.ok()) {
        parser_answer a;
        a.failure =
            "could not start " + state_->program.string() + ": " + started.error().message();
        return a;
      }
      p = std::move(started).value();
    }
    // A kept process that ended for a reason not the unit's (killed from outside while idle, or
    // between the request and its answer) hands the unit to a new process, once.
    if (!send_frame(p->socket.get(), request)) {
      if (reused) continue;
      return state_->ended(*p);
    }
    pollfd answer{p->socket.get(), POLLIN, 0};
    const int waited_ms = static_cast<int>(std::ceil(state_->limits.wall_seconds * 1000));
    int ready = 0;
    do {
      ready = ::poll(&answer, 1, waited_ms);
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) {
      parser_answer a;
      a.outcome = parser_answer::kind::past_bounds;
      return a;  // `p` ends with this scope
    }
    parser_answer a;
    if (!receive_frame(p->socket.get(), a.verdict)) {
      parser_answer ended = state_->ended(*p);
      if (reused && ended.outcome == parser_answer::kind::failed) continue;
      return ended;
    }
    a.outcome = parser_answer::kind::answered;
    ++p->served;
    state_->give_back(std::move(p));
    return a;
  }
}

const screen_parser_limits& screen_parser_pool::limits() const {
  return state_->limits;
}

uint64_t screen_parser_pool::processes_started() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->started;
}

}  // namespace aopt::npu
