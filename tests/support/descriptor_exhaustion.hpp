// Uses up every file descriptor of the process but `spare`, for one scope (under a soft
// RLIMIT_NOFILE lowered to at most 512), to test what runs out of descriptors (EMFILE).
#pragma once

#include <sys/resource.h>

#include <vector>

namespace aopt::testing {

class descriptor_exhaustion {
 public:
  explicit descriptor_exhaustion(int spare);
  ~descriptor_exhaustion();
  descriptor_exhaustion(const descriptor_exhaustion&) = delete;
  descriptor_exhaustion& operator=(const descriptor_exhaustion&) = delete;

 private:
  rlimit saved_{};
  std::vector<int> held_;
};

}  // namespace aopt::testing
