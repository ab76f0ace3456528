// A memfd holding bytes that no process can change once made: sealed against writing, growing,
// shrinking and further sealing. The trusted process hands what a sandboxed child must read (its
// input sets, its spec) this way instead of through a file in a directory the child can write.
// A child reads it with pread from offset 0 (the offset is shared with every copy of the
// descriptor) or maps it read-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "base/unique_fd.hpp"

namespace aopt::npu {

struct byte_span {
  const void* data = nullptr;
  size_t size = 0;
};

// A sealed memfd named `name` (seen in /proc/<pid>/fd only) holding `parts` back to back,
// close-on-exec. internal error when it cannot be made, filled or sealed.
result<unique_fd> sealed_memfd(const char* name, const std::vector<byte_span>& parts);
// A sealed memfd of `bytes` bytes that `fill` writes first, into a buffer on huge pages that is
// then written to the memfd at once (filling the memfd's own pages through a mapping costs a
// fault per 4 KiB page).
result<unique_fd> sealed_memfd_filled(const char* name, uint64_t bytes,
                                      const std::function<void(uint8_t*)>& fill);

}  // namespace aopt::npu
