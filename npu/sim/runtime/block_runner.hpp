// Runs the blocks of one launch so that SyncAll really synchronises them. Blocks take turns in
// block order, one at a time, each on a worker thread: without SyncAll that is exactly the
// blocks one after another (and one worker serves them all). A block that calls SyncAll parks
// and hands the turn to the next block; once every block has parked at the same SyncAll, the
// turns start again from block 0. So every block's work before a SyncAll happens before any
// block's work after it, deterministically, and no two blocks ever run at the same time (the
// simulated GM needs no locking).
//
// A block that returns while others wait in a SyncAll it never reaches would hang the hardware:
// run() reports it as sim_error "deadlock".
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace aopt::sim {

class block_runner {
 public:
  explicit block_runner(uint32_t blocks);
  ~block_runner();
  block_runner(const block_runner&) = delete;
  block_runner& operator=(const block_runner&) = delete;

  // Runs run_block(b) for b in 0..blocks-1 as described above. Rethrows the first failure in
  // turn order once every block has ended (blocks parked at that moment are unwound by an
  // exception thrown from their sync_all).
  void run(const std::function<void(uint32_t)>& run_block);

  // For block `block`, on its worker thread, at a SyncAll: returns once every block has reached
  // this SyncAll.
  void sync_all(uint32_t block);

  uint32_t blocks() const { return static_cast<uint32_t>(state_.size()); }

 private:
  enum class block_state : uint8_t { waiting_start, running, parked, done };
  static constexpr int64_t nobody = -1;

  void worker_loop();
  void run_one(uint32_t block);
  // Gives block `b` the turn and waits until it parks or ends. REQUIRES: lock held.
  void take_turn(std::unique_lock<std::mutex>& lock, uint32_t b);
  void abort_all(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<block_state> state_;
  int64_t turn_ = nobody;      // the block allowed to run
  int64_t to_start_ = nobody;  // a block waiting for a worker
  uint32_t idle_workers_ = 0;
  bool aborting_ = false;
  bool quit_ = false;
  std::exception_ptr error_;
  const std::function<void(uint32_t)>* run_block_ = nullptr;
  std::vector<std::thread> workers_;
};

}  // namespace aopt::sim
