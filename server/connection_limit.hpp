// The number of connections the HTTP server holds open at once (server.max_connections). Each
// accepted connection takes a slot for as long as its socket lives (an event stream included);
// a connection beyond the limit gets a 503 and is closed, so a flood of clients cannot take the
// file descriptors that running campaigns need for their compilers, candidates and database.
//
// Thread-safety: try_acquire() and the slots' destructors may run on any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>

namespace aopt::server {

class connection_limit {
 public:
  // Holds one connection's place; releasing happens when the slot is destroyed.
  class slot {
   public:
    slot() = default;
    slot(slot&&) noexcept = default;
    slot& operator=(slot&& other) noexcept;
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;
    ~slot() { release(); }

   private:
    friend class connection_limit;
    explicit slot(std::shared_ptr<std::atomic<size_t>> open) : open_(std::move(open)) {}
    void release();
    std::shared_ptr<std::atomic<size_t>> open_;
  };

  // `max` >= 1.
  explicit connection_limit(size_t max);

  // A slot, or nullopt when `max` connections are open (counted as refused).
  std::optional<slot> try_acquire();

  size_t max() const { return max_; }
  size_t open() const { return open_->load(); }
  uint64_t refused() const { return refused_.load(); }

 private:
  size_t max_;
  // Shared with the slots, which may outlive the limit (a session finishing after stop()).
  std::shared_ptr<std::atomic<size_t>> open_ = std::make_shared<std::atomic<size_t>>(0);
  std::atomic<uint64_t> refused_{0};
};

// The limit `configured` (server.max_connections) lowered to what the process's file
// descriptor limit leaves room for: at most a quarter of RLIMIT_NOFILE, the rest being kept for
// the database, compilers and candidates. At least 1.
size_t effective_connection_limit(size_t configured);

}  // namespace aopt::server
