#include "server/stop_signals.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "runtime/signal_watcher.hpp"

namespace aopt::server {

stop_signals::stop_signals() {
  sigset_t set = runtime::stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int stop_signals::wait() {
  sigset_t set = runtime::stop_signal_set();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  return sig;
}

void stop_signals::arm_hard_stop() {
  std::thread([] {
    sigset_t set = runtime::stop_signal_set();
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    std::fprintf(stderr, "aopt serve: second signal, exiting now\n");
    std::_Exit(130);
  }).detach();
}

}  // namespace aopt::server
