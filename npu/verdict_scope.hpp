// What a cached or remote verdict is valid for: the hardware profile, and beside it the checker
// that judged (npu::device::checker_id). Every store of verdicts keyed by device (the evaluation
// cache, the bank's rewind records) keys by this, so that a verdict given by another build of the
// checker, or by a profile of the same name with other constants, is never taken for this one's
// (issue 30).
#pragma once

#include <string>

namespace aopt::npu {

// "sim:ascend910b4@<checker>", or the profile alone for a device that names no checker.
inline std::string verdict_scope(const std::string& profile_id, const std::string& checker_id) {
  return checker_id.empty() ? profile_id : profile_id + "@" + checker_id;
}

}  // namespace aopt::npu
