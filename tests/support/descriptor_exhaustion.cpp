#include "support/descriptor_exhaustion.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <doctest/doctest.h>

namespace aopt::testing {

descriptor_exhaustion::descriptor_exhaustion(int spare) {
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved_) == 0);
  rlimit low = saved_;
  low.rlim_cur = std::min<rlim_t>(saved_.rlim_cur, 512);
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &low) == 0);
  for (int fd; (fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) held_.push_back(fd);
  REQUIRE(errno == EMFILE);
  for (int i = 0; i < spare && !held_.empty(); ++i) {
    ::close(held_.back());
    held_.pop_back();
  }
}

descriptor_exhaustion::~descriptor_exhaustion() {
  for (int fd : held_) ::close(fd);
  ::setrlimit(RLIMIT_NOFILE, &saved_);
}

}  // namespace aopt::testing
