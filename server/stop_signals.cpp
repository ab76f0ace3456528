#include "server/stop_signals.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace aopt::server {

namespace {

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

}  // namespace

stop_signals::stop_signals() {
  sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int stop_signals::wait() {
  sigset_t set = stop_set();
  int sig = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  return sig;
}

void stop_signals::arm_hard_stop() {
  std::thread([] {
    sigset_t set = stop_set();
    int sig = 0;
    while (sigwait(&set, &sig) != 0) {
    }
    std::fprintf(stderr, "aopt serve: second signal, exiting now\n");
    std::_Exit(130);
  }).detach();
}

}  // namespace aopt::server
