#include "block_runner.hpp"

#include <string>

#include "core_context.hpp"

namespace aopt::sim {

block_runner::block_runner(uint32_t blocks) : state_(blocks, block_state::waiting_start) {}

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
      if (s == block_state::running || s == block_state::parked) return false;
    return true;
  });
}

void block_runner::run(const std::function<void(uint32_t)>& run_block) {
  run_block_ = &run_block;
  std::unique_lock<std::mutex> lock(mutex_);
  try {
    for (uint32_t round = 0;; ++round) {
      for (uint32_t b = 0; b < state_.size() && !error_; ++b) {
        if (state_[b] != block_state::done) take_turn(lock, b);
      }
      if (error_) break;
      std::vector<uint32_t> parked, returned;
      for (uint32_t b = 0; b < state_.size(); ++b)
        (state_[b] == block_state::parked ? parked : returned).push_back(b);
      if (parked.empty()) break;
      if (!returned.empty()) {
        error_ = std::make_exception_ptr(
            sim_error("deadlock", "SyncAll #" + std::to_string(round + 1) + ": block " +
                                      std::to_string(parked.front()) + " waits in it but block " +
                                      std::to_string(returned.front()) +
                                      " returned without reaching it; on hardware the launch hangs "
                                      "(every block must call SyncAll the same number of times)"));
        break;
      }
    }
  } catch (...) {  // a worker thread could not be created
    if (!error_) error_ = std::current_exception();
  }
  abort_all(lock);
  lock.unlock();
  if (error_) std::rethrow_exception(error_);
}

void block_runner::sync_all(uint32_t block) {
  std::unique_lock<std::mutex> lock(mutex_);
  state_[block] = block_state::parked;
  turn_ = nobody;
  changed_.notify_all();
  changed_.wait(lock, [this, block] { return aborting_ || turn_ == block; });
  if (turn_ != block) {
    state_[block] = block_state::running;  // unwinding; run_one marks it done
    throw sim_error("deadlock", "SyncAll: the launch ended while this block waited in it");
  }
}

}  // namespace aopt::sim
