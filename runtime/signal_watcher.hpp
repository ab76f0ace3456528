// Turns SIGINT and SIGTERM into a stop request instead of killing the process, so a campaign
// can persist the step in flight and stop cleanly. Construct it before any other thread starts:
// it blocks the signals in the calling thread, which every later thread inherits, and waits for
// them on its own thread. A second signal while stopping restores the default action, so a
// third one ends the process at once.
#pragma once

#include <atomic>
#include <csignal>
#include <memory>
#include <thread>

namespace aopt::runtime {

// The signals that ask aopt to stop: SIGINT and SIGTERM.
sigset_t stop_signal_set();

class signal_watcher {
 public:
  signal_watcher();
  ~signal_watcher();
  signal_watcher(const signal_watcher&) = delete;
  signal_watcher& operator=(const signal_watcher&) = delete;

  std::shared_ptr<const std::atomic<bool>> stop_flag() const { return stop_; }

 private:
  std::shared_ptr<std::atomic<bool>> stop_;
  std::atomic<bool> closing_{false};
  std::thread waiter_;
};

}  // namespace aopt::runtime
