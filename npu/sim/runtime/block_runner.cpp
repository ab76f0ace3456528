#include "block_runner.hpp"

#include <string>

#include "core_context.hpp"

namespace aopt::sim {

block_runner::block_runner(uint32_t blocks)
    : state_(blocks, block_state::waiting_start), awaited_(blocks, 0), waits_(blocks) {}

block_runner::~block_runner() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void block_runner::worker_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] { return quit_ || to_start_ != nobody; });
    if (to_start_ == nobody) return;  // quit_ with nothing left to start
    const auto block = static_cast<uint32_t>(to_start_);
    to_start_ = nobody;
    --idle_workers_;
    lock.unlock();
    run_one(block);
    lock.lock();
  }
}

void block_runner::run_one(uint32_t block) {
  std::exception_ptr failure;
  try {
    (*run_block_)(block);
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure && !error_) error_ = failure;
    state_[block] = block_state::done;
    ++idle_workers_;
    if (turn_ == block) turn_ = nobody;
  }
  changed_.notify_all();
}

void block_runner::take_turn(std::unique_lock<std::mutex>& lock, uint32_t b) {
  if (state_[b] == block_state::waiting_start) {
    if (idle_workers_ == 0) {
      ++idle_workers_;
      workers_.emplace_back([this] { worker_loop(); });
    }
    to_start_ = b;
  }
  state_[b] = block_state::running;
  turn_ = b;
  changed_.notify_all();
  changed_.wait(lock, [this] { return turn_ == nobody; });
}

void block_runner::abort_all(std::unique_lock<std::mutex>& lock) {
  aborting_ = true;
  changed_.notify_all();
  changed_.wait(lock, [this] {
    for (block_state s : state_)
      if (s != block_state::waiting_start && s != block_state::done) return false;
    return true;
  });
}

bool block_runner::can_go_on(uint32_t b) const {
  switch (state_[b]) {
    case block_state::waiting_start:
    case block_state::released:
      return true;
    case block_state::waiting_flag:
      return flags_.count(awaited_[b]) != 0;
    default:
      return false;
  }
}

std::string block_runner::deadlock_reason(uint32_t sync_alls_passed) const {
  std::vector<uint32_t> parked, waiting, returned;
  for (uint32_t b = 0; b < state_.size(); ++b) {
    if (state_[b] == block_state::parked) parked.push_back(b);
    if (state_[b] == block_state::waiting_flag) waiting.push_back(b);
    if (state_[b] == block_state::done) returned.push_back(b);
  }
  if (!waiting.empty()) {
    std::string others;
    if (!parked.empty())
      others = "; block " + std::to_string(parked.front()) + " waits in a SyncAll";
    return waits_[waiting.front()] + ", which no block sets (every other block has returned or " +
           "waits too" + others +
           "); on hardware the launch hangs (every IBWait needs a matching IBSet with the same "
           "blockIdx and eventID)";
  }
  return "SyncAll #" + std::to_string(sync_alls_passed + 1) + ": block " +
         std::to_string(parked.front()) + " waits in it but block " +
         std::to_string(returned.front()) +
         " returned without reaching it; on hardware the launch hangs (every block must call "
         "SyncAll the same number of times)";
}

void block_runner::run(const std::function<void(uint32_t)>& run_block) {
  run_block_ = &run_block;
  std::unique_lock<std::mutex> lock(mutex_);
  try {
    for (uint32_t sync_alls = 0;;) {
      // Turns in block order until no block can go on: each runs until it returns, parks in a
      // SyncAll or waits for a flag no block has set yet.
      for (bool moved = true; moved && !error_;) {
        moved = false;
        for (uint32_t b = 0; b < state_.size() && !error_; ++b) {
          if (!can_go_on(b)) continue;
          take_turn(lock, b);
          moved = true;
        }
      }
      if (error_) break;
      bool parked = false, waiting = false, returned = false;
      for (block_state st : state_) {
        parked = parked || st == block_state::parked;
        waiting = waiting || st == block_state::waiting_flag;
        returned = returned || st == block_state::done;
      }
      if (!parked && !waiting) break;  // every block returned
      if (waiting || returned) {
        error_ = std::make_exception_ptr(sim_error("deadlock", deadlock_reason(sync_alls)));
        break;
      }
      // Every block waits in the same SyncAll: it passes.
      ++sync_alls;
      for (block_state& st : state_) st = block_state::released;
    }
  } catch (...) {  // a worker thread could not be created
    if (!error_) error_ = std::current_exception();
  }
  abort_all(lock);
  lock.unlock();
  if (error_) std::rethrow_exception(error_);
}

void block_runner::hand_over(std::unique_lock<std::mutex>& lock, uint32_t block, block_state why,
                             const char* api) {
  state_[block] = why;
  turn_ = nobody;
  changed_.notify_all();
  changed_.wait(lock, [this, block] { return aborting_ || turn_ == block; });
  if (turn_ != block) {
    state_[block] = block_state::running;  // unwinding; run_one marks it done
    throw sim_error("deadlock",
                    std::string(api) + ": the launch ended while this block waited in it");
  }
}

void block_runner::sync_all(uint32_t block) {
  std::unique_lock<std::mutex> lock(mutex_);
  hand_over(lock, block, block_state::parked, "SyncAll");
}

void block_runner::wait_flag(uint32_t block, uint64_t flag, std::string what) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (flags_.count(flag) != 0) return;
  awaited_[block] = flag;
  waits_[block] = std::move(what);
  hand_over(lock, block, block_state::waiting_flag, "IBWait");
}

void block_runner::set_flag(uint64_t flag) {
  std::lock_guard<std::mutex> lock(mutex_);
  flags_.insert(flag);
}

}  // namespace aopt::sim
