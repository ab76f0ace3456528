#include "llm/http_runtime.hpp"

#include <algorithm>

namespace aopt::llm {

http_runtime::http_runtime(unsigned threads) : work_(boost::asio::make_work_guard(context_)) {
  threads = std::max(threads, 1u);
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { context_.run(); });
}

http_runtime::~http_runtime() {
  work_.reset();
  for (std::thread& t : threads_) t.join();
}

bool http_runtime::on_runtime_thread() {
  return context_.get_executor().running_in_this_thread();
}

}  // namespace aopt::llm
