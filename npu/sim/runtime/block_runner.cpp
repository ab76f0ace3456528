#include "block_runner.hpp"

#include <algorithm>
#include <string>

#include "core_context.hpp"

namespace aopt::sim {

block_runner::block_runner(uint32_t blocks) : block_runner(std::vector<uint32_t>(blocks, 0)) {}

block_runner::block_runner(std::vector<uint32_t> sync_class)
    : state_(sync_class.size(), block_state::waiting_start),
      sync_class_(std::move(sync_class)),
      awaited_(state_.size(), 0),
      awaits_counter_(state_.size(), 0),
      waits_(state_.size()) {}

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
      if (awaits_counter_[b] != 0) {
        const auto c = counters_.find(awaited_[b]);
        return c != counters_.end() && !c->second.empty();
      }
      return flags_.count(awaited_[b]) != 0;
    default:
      return false;
  }
}

std::string block_runner::deadlock_reason(const std::vector<uint32_t>& sync_alls_passed) const {
  std::vector<uint32_t> parked, waiting;
  for (uint32_t b = 0; b < state_.size(); ++b) {
    if (state_[b] == block_state::parked) parked.push_back(b);
    if (state_[b] == block_state::waiting_flag) waiting.push_back(b);
  }
  if (!waiting.empty()) {
    const uint32_t w = waiting.front();
    std::string others;
    if (!parked.empty())
      others = "; block " + std::to_string(parked.front()) + " waits in a SyncAll";
    const char* rule =
        awaits_counter_[w] != 0
            ? "every CrossCoreWaitFlag needs a CrossCoreSetFlag of the same flagId "
              "and mode on the cores it waits for"
            : "every IBWait needs a matching IBSet with the same blockIdx and eventID";
    return waits_[w] + ", which no block sets (every other block has returned or waits too" +
           others + "); on hardware the launch hangs (" + rule + ")";
  }
  const uint32_t p = parked.front();
  uint32_t returned = p;
  for (uint32_t b = 0; b < state_.size(); ++b) {
    if (state_[b] == block_state::done && sync_class_[b] == sync_class_[p]) {
      returned = b;
      break;
    }
  }
  return "SyncAll #" + std::to_string(sync_alls_passed[sync_class_[p]] + 1) + ": block " +
         std::to_string(p) + " waits in it but block " + std::to_string(returned) +
         " returned without reaching it; on hardware the launch hangs (every block must call "
         "SyncAll the same number of times)";
}

void block_runner::run(const std::function<void(uint32_t)>& run_block) {
  run_block_ = &run_block;
  uint32_t classes = 0;
  for (uint32_t c : sync_class_) classes = std::max(classes, c + 1);
  std::vector<uint32_t> sync_alls(classes, 0);
  std::unique_lock<std::mutex> lock(mutex_);
  try {
    for (;;) {
      // Turns in block order until no block can go on: each runs until it returns, parks in a
      // SyncAll or waits for a flag or counter no block has set yet.
      for (bool moved = true; moved && !error_;) {
        moved = false;
        for (uint32_t b = 0; b < state_.size() && !error_; ++b) {
          if (!can_go_on(b)) continue;
          take_turn(lock, b);
          moved = true;
        }
      }
      if (error_) break;
      // A class whose every block waits in the same SyncAll passes it.
      std::vector<uint32_t> in_class(classes, 0), parked(classes, 0);
      bool left = false;
      for (uint32_t b = 0; b < state_.size(); ++b) {
        ++in_class[sync_class_[b]];
        parked[sync_class_[b]] += state_[b] == block_state::parked;
        left = left || state_[b] == block_state::parked || state_[b] == block_state::waiting_flag;
      }
      if (!left) break;  // every block returned
      bool released = false;
      for (uint32_t c = 0; c < classes; ++c) {
        if (parked[c] == 0 || parked[c] != in_class[c]) continue;
        ++sync_alls[c];
        released = true;
        for (uint32_t b = 0; b < state_.size(); ++b)
          if (sync_class_[b] == c) state_[b] = block_state::released;
      }
      if (!released) {
        error_ = std::make_exception_ptr(sim_error("deadlock", deadlock_reason(sync_alls)));
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
  awaits_counter_[block] = 0;
  waits_[block] = std::move(what);
  hand_over(lock, block, block_state::waiting_flag, "IBWait");
}

void block_runner::set_flag(uint64_t flag) {
  std::lock_guard<std::mutex> lock(mutex_);
  flags_.insert(flag);
}

void block_runner::signal(uint64_t counter, std::vector<uint64_t> signals) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::deque<std::vector<uint64_t>>& pending = counters_[counter];
  // The AscendC documentation: a flagId's counter may be set at most 16 times.
  if (pending.size() >= max_counter) {
    throw sim_error("flag_misuse", "CrossCoreSetFlag: the flag's counter already holds " +
                                       std::to_string(max_counter) +
                                       " sets no CrossCoreWaitFlag took (at most 16 are allowed)");
  }
  pending.push_back(std::move(signals));
}

std::vector<uint64_t> block_runner::take(uint32_t block, uint64_t counter, std::string what) {
  std::unique_lock<std::mutex> lock(mutex_);
  std::deque<std::vector<uint64_t>>& pending = counters_[counter];
  if (pending.empty()) {
    awaited_[block] = counter;
    awaits_counter_[block] = 1;
    waits_[block] = std::move(what);
    hand_over(lock, block, block_state::waiting_flag, "CrossCoreWaitFlag");
  }
  std::vector<uint64_t> taken = std::move(counters_[counter].front());
  counters_[counter].pop_front();
  return taken;
}

std::vector<uint64_t> block_runner::join(uint64_t round, uint32_t participant,
                                         uint32_t participants, uint64_t signal) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::deque<uint64_t>>& pending = joins_[round];
  pending.resize(participants);
  pending[participant].push_back(signal);
  for (const std::deque<uint64_t>& p : pending)
    if (p.empty()) return {};
  std::vector<uint64_t> joined;
  for (std::deque<uint64_t>& p : pending) {
    joined.push_back(p.front());
    p.pop_front();
  }
  return joined;
}

}  // namespace aopt::sim
