// http_runtime: the Asio io_context that runs the LLM layer's network I/O and timers, and the
// threads that run it (RAII: started by the constructor, joined by the destructor).
//
// Completion callbacks of the client and the gateway run on these threads, so they must not
// block: an actor forwards the result into its mailbox and returns.
//
// Shutdown: destroy the users first (openai_client cancels its requests in flight, gateway
// fails its queued calls), then the runtime; its destructor lets the remaining handlers finish
// and joins the threads.
//
// Thread-safety: context() may be used from any thread.
#pragma once

#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

namespace aopt::llm {

class http_runtime {
 public:
  // REQUIRES: threads >= 1.
  explicit http_runtime(unsigned threads = 1);
  ~http_runtime();

  http_runtime(const http_runtime&) = delete;
  http_runtime& operator=(const http_runtime&) = delete;

  boost::asio::io_context& context() { return context_; }

  // True on one of this runtime's threads, where blocking on an LLM call would deadlock it.
  bool on_runtime_thread();

 private:
  boost::asio::io_context context_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
};

}  // namespace aopt::llm
