// The delivery channel of a candidate or reference process: its standard output, a pipe the
// trusted parent owns. At start-up the process keeps a private duplicate of it and points fd 1
// at stderr, so whatever the operator's code prints cannot corrupt the delivery (it lands in the
// parent's log). A candidate that writes into the channel anyway can only deliver something the
// trusted checker then rejects or judges.
#pragma once

#include <string>

namespace aopt::sim {

class delivery_channel {
 public:
  // Takes over fd 1. REQUIRES: called once, first thing in main().
  delivery_channel();
  // Writes all of `bytes`; false when the pipe is gone.
  bool deliver(const std::string& bytes);

 private:
  int fd_ = -1;
};

}  // namespace aopt::sim
