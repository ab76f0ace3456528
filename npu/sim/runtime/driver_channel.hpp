// The delivery channel of a candidate or reference process: its standard output, a memory file
// the trusted parent owns and seals once the process is gone (base/subprocess.hpp's
// stdout_to_memory_file; a pipe for processes run without it). At start-up the process keeps a
// private duplicate of it and points fd 1 at stderr, so whatever the operator's code prints cannot
// corrupt the delivery (it lands in the parent's log). A candidate that writes into the channel
// anyway can only deliver something the trusted checker then rejects or judges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace aopt::sim {

class delivery_channel {
 public:
  // Takes over fd 1. REQUIRES: called once, first thing in main().
  delivery_channel();
  // Writes all of `bytes`; false when the channel is gone.
  bool deliver(const std::string& bytes) { return deliver(bytes.data(), bytes.size()); }
  // Writes `size` bytes after those delivered before: a delivery may come in parts.
  bool deliver(const char* data, size_t size);
  // Ends the process with exit code 0 once the delivery is written, without destructors:
  // freeing an operator's outputs and traces piece by piece costs more than the kernel's
  // teardown of the whole process, and nothing after the delivery counts.
  [[noreturn]] static void exit_delivered();

 private:
  int fd_ = -1;
  uint64_t delivered_ = 0;
};

}  // namespace aopt::sim
