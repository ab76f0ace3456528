#include "runtime/signal_watcher.hpp"

#include <csignal>
#include <cstdio>
#include <ctime>

namespace aopt::runtime {

sigset_t stop_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

signal_watcher::signal_watcher() : stop_(std::make_shared<std::atomic<bool>>(false)) {
  sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  waiter_ = std::thread([this] {
    sigset_t signals = stop_signal_set();
    const timespec poll{0, 200'000'000};
    int received = 0;
    while (!closing_.load()) {
      if (sigtimedwait(&signals, nullptr, &poll) < 0) continue;
      if (++received == 1) {
        stop_->store(true);
        std::fprintf(stderr,
                     "\naopt: stopping after the evaluations in flight (again to stop harder)\n");
      } else {
        // Let the next signal take its default action.
        pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
      }
    }
  });
}

signal_watcher::~signal_watcher() {
  closing_.store(true);
  waiter_.join();
  sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

}  // namespace aopt::runtime
