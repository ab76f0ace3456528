#include "server/connection_limit.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <utility>

namespace aopt::server {

connection_limit::slot& connection_limit::slot::operator=(slot&& other) noexcept {
  if (this != &other) {
    release();
    open_ = std::move(other.open_);
  }
  return *this;
}

void connection_limit::slot::release() {
  if (open_) open_->fetch_sub(1);
  open_.reset();
}

connection_limit::connection_limit(size_t max) : max_(std::max<size_t>(max, 1)) {}

std::optional<connection_limit::slot> connection_limit::try_acquire() {
  size_t n = open_->load();
  do {
    if (n >= max_) {
      refused_.fetch_add(1);
      return std::nullopt;
    }
  } while (!open_->compare_exchange_weak(n, n + 1));
  return slot(open_);
}

size_t effective_connection_limit(size_t configured) {
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) != 0 || files.rlim_cur == RLIM_INFINITY) {
    return std::max<size_t>(configured, 1);
  }
  const size_t room = static_cast<size_t>(files.rlim_cur / 4);
  return std::max<size_t>(std::min(configured, room), 1);
}

}  // namespace aopt::server
