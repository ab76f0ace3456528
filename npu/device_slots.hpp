// Device slots: the bounded set of places an evaluation can run, each on a device of the same
// hardware profile. Whoever evaluates leases one slot per evaluation through this interface, so
// that the evaluation service (agent/evaluation/evaluation_service.hpp) does not care where the
// slot is:
//
//   npu::local_device_slots     this process's device, at most N evaluations at once (a
//                               counting semaphore), for code that runs without an actor system
//   actors::device_pool_slots   the device pool actor (issue 19): a local slot or a remote
//                               worker's (`aopt worker`), leased by the pool's lease table
//
// Thread-safety: evaluate() may be called from several threads at once; it blocks until a slot
// was free and the evaluation on it is done.
#pragma once

#include <memory>
#include <string>

#include "base/status.hpp"
#include "npu/device.hpp"

namespace aopt::npu {

// One evaluation to run on a slot.
struct slot_job {
  // Shared, not borrowed: an evaluation a remote worker was too late to answer may be run again
  // on another slot, after its first answer reached the caller.
  std::shared_ptr<const op_package> op;
  std::string tiling;
  std::string kernel;
  eval_options options;     // options.cold: a confirmation
  std::string campaign;     // who asked, for the slot owner's bookkeeping
  bool validation = false;  // a check of a final best on a validation shape (counted apart)
};

class device_slots {
 public:
  virtual ~device_slots() = default;
  // Runs `job` on a free slot, waiting for one. The result is the device's (every candidate
  // failure is an eval_result status); an error means no slot could give one (the pool is gone,
  // a worker's answer could not be read).
  virtual result<eval_result> evaluate(const slot_job& job) = 0;
  // The hardware profile of every slot ("sim:ascend910b4"): part of every evaluation cache key.
  virtual std::string profile_id() const = 0;
  // The device's checker_id() (device.hpp): part of every evaluation cache key.
  virtual std::string checker_id() const { return {}; }
};

}  // namespace aopt::npu
