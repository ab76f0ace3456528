// Shows a running campaign: on a terminal, one progress bar per running operator (stage, step,
// best speedup) and an overall bar with ETA, redrawn in place; elsewhere (a pipe, a log file,
// CI) one plain line per event. Every finished operator prints a line with its outcome and why
// (outcome_reason.hpp), on a terminal above the bars. Thread-safe: episodes publish from many
// threads.
#pragma once

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "agent/episode/campaign_events.hpp"

namespace aopt::runtime {

class progress_view : public agent::event_sink {
 public:
  // `total_budget`: candidates the whole campaign may evaluate (for the overall bar and ETA).
  progress_view(std::FILE* out, bool interactive, uint64_t total_budget, size_t operators);
  ~progress_view() override;

  void publish(const agent::campaign_event& event) override;
  // Clears the live bars (before the final table is printed).
  void close();

 private:
  struct op_progress {
    uint32_t candidates = 0;
    uint32_t budget = 0;
    int stage = 0;
    uint32_t round = 0;
    double baseline_us = 0;
    double best_us = 0;
    bool finished = false;
  };

  void log_line(const agent::campaign_event& e);
  void redraw();
  std::string bar(double fraction, int width) const;

  std::FILE* out_;
  bool interactive_;
  uint64_t total_budget_;
  size_t operators_;
  std::mutex mutex_;
  std::map<std::string, op_progress> ops_;  // guarded by mutex_
  uint64_t done_candidates_ = 0;            // guarded by mutex_
  size_t finished_ops_ = 0;                 // guarded by mutex_
  int drawn_lines_ = 0;                     // guarded by mutex_
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace aopt::runtime
