// The latest baseline drift check of every (operator, NPU): written by the CANN device after each
// baseline re-measurement, read by /metrics (aopt_baseline_drift_ratio and _alarm). One board is
// shared by every campaign of a process (the daemon passes its own to each campaign).
//
// Thread-safety: every member may be called from several threads at once.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace aopt::npu {

struct drift_reading {
  std::string op;
  std::string device_id;
  double ratio = 1;  // the baseline's current median / its first median on this NPU
  bool alarm = false;
};

class drift_board {
 public:
  void publish(const drift_reading& r);
  // Sorted by operator, then NPU.
  std::vector<drift_reading> readings() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, drift_reading> latest_;  // guarded by mutex_
};

}  // namespace aopt::npu
