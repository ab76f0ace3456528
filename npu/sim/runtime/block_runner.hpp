// Runs the blocks of one launch so that SyncAll and IBSet/IBWait really synchronise them. Blocks
// take turns in block order, one at a time, each on a worker thread: without synchronisation
// that is exactly the blocks one after another (and one worker serves them all). A block that
// calls SyncAll parks and hands the turn to the next block; once every block has parked at the
// same SyncAll, the turns start again from block 0. So every block's work before a SyncAll
// happens before any block's work after it, deterministically, and no two blocks ever run at the
// same time (the simulated GM needs no locking).
//
// IBWait waits for an inter-block flag that IBSet sets: a block waiting for a flag nobody has
// set yet hands the turn on, and gets it back, in block order, once some block has set it. So a
// block may wait for a later block (as kernels merging their neighbours' results do), which
// running the blocks one after another could not honour.
//
// The cores of a MIX launch (launch_layout.hpp) fall into SyncAll classes: SyncAll synchronises
// the AIVs among themselves (and the AIC class among itself), so an AIC that never calls it does
// not hold the AIVs' SyncAll. CrossCoreSetFlag/WaitFlag are counters: signal() adds one to a
// counter, take() waits until it is above zero and takes one, in order.
//
// A block that returns while others of its class wait in a SyncAll it never reaches, or a wait
// for a flag or counter no block sets, would hang the hardware: run() reports it as sim_error
// "deadlock".
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace aopt::sim {

class block_runner {
 public:
  explicit block_runner(uint32_t blocks);
  // `sync_class[b]`: the SyncAll class of block b (every block in one class by default).
  explicit block_runner(std::vector<uint32_t> sync_class);
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

  // For block `block`, on its worker thread, at an IBWait: returns once some block has set
  // `flag` (at once if one already has). `what` names the wait for a deadlock message ("IBWait
  // (line 9): block 0 waits for the flag of block 1, eventID 0").
  void wait_flag(uint32_t block, uint64_t flag, std::string what);

  // At an IBSet: sets `flag` for the rest of the launch (the AscendC documentation says nothing
  // of clearing one; kernels take a new eventID for each round).
  void set_flag(uint64_t flag);

  // CrossCoreSetFlag: one more on `counter`, made of the sets `signals` name (the timing model
  // waits for them). Throws sim_error "flag_misuse" when the counter already holds 16.
  void signal(uint64_t counter, std::vector<uint64_t> signals);
  // CrossCoreWaitFlag, for block `block` on its worker thread: returns the oldest increment of
  // `counter` once there is one, taking it. `what` names the wait for a deadlock message.
  std::vector<uint64_t> take(uint32_t block, uint64_t counter, std::string what);
  // A set that counts only once every one of `participants` has made one (CrossCoreSetFlag of two
  // AIVs towards their AIC, or among cores): adds `signal` as `participant`'s, and when each
  // participant of `round` has one pending returns the first pending of each (taking them), else
  // an empty list.
  std::vector<uint64_t> join(uint64_t round, uint32_t participant, uint32_t participants,
                             uint64_t signal);
  // A launch-wide id for a CrossCoreSetFlag (its trace entry's signal).
  uint64_t next_signal() { return next_signal_++; }

  uint32_t blocks() const { return static_cast<uint32_t>(state_.size()); }

 private:
  // parked: in a SyncAll; released: its SyncAll passed, the block waits for its turn;
  // waiting_flag: in an IBWait.
  enum class block_state : uint8_t { waiting_start, running, parked, released, waiting_flag, done };
  static constexpr int64_t nobody = -1;
  static constexpr size_t max_counter = 16;

  void worker_loop();
  void run_one(uint32_t block);
  // Gives block `b` the turn and waits until it parks or ends. REQUIRES: lock held.
  void take_turn(std::unique_lock<std::mutex>& lock, uint32_t b);
  // Whether block `b` can run now. REQUIRES: lock held.
  bool can_go_on(uint32_t b) const;
  // Why no block can go on while some still wait. REQUIRES: lock held.
  std::string deadlock_reason(const std::vector<uint32_t>& sync_alls_passed) const;
  // Parks the calling block `block` in state `why` until it gets the turn back; throws when the
  // launch ends first. REQUIRES: lock held.
  void hand_over(std::unique_lock<std::mutex>& lock, uint32_t block, block_state why,
                 const char* api);
  void abort_all(std::unique_lock<std::mutex>& lock);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<block_state> state_;
  std::set<uint64_t> flags_;  // the flags IBSet has set
  // CrossCoreSetFlag counters: each increment with the sets it is made of.
  std::map<uint64_t, std::deque<std::vector<uint64_t>>> counters_;
  std::map<uint64_t, std::vector<std::deque<uint64_t>>> joins_;  // join(): pending per participant
  uint64_t next_signal_ = 0;
  std::vector<uint32_t> sync_class_;
  std::vector<uint64_t> awaited_;     // per block in waiting_flag: the flag or counter it waits for
  std::vector<char> awaits_counter_;  // per block in waiting_flag: a counter (take), not a flag
  std::vector<std::string> waits_;    // per block in waiting_flag: its wait, for messages
  int64_t turn_ = nobody;             // the block allowed to run
  int64_t to_start_ = nobody;         // a block waiting for a worker
  uint32_t idle_workers_ = 0;
  bool aborting_ = false;
  bool quit_ = false;
  std::exception_ptr error_;
  const std::function<void(uint32_t)>* run_block_ = nullptr;
  std::vector<std::thread> workers_;
};

}  // namespace aopt::sim
