// What the simulator's verdicts and latencies depend on beyond the profile's name: the judge
// executable, the runtime libraries every candidate links, the shim headers it compiles against
// and the hardware profile's constants. Its digest is part of every evaluation cache key
// (npu::device::checker_id), so that a verdict cached by another build of the checker (before a
// race detector, a price or a profile constant changed) is never served as this one's: a cached
// `ok` of a candidate today's judge refuses would otherwise survive every rebuild.
//
// Thread-safety: a free function reading files; call it once per device.
#pragma once

#include <string>

#include "npu/sim/device/candidate_builder.hpp"
#include "npu/sim/runtime/hw_profile.hpp"

namespace aopt::npu {

// 16 hex digits over the files of `toolchain` (the judge, the libraries of lib_dir and every
// file of include_dir, each with its path relative to its folder) and `profile`'s constants. A file
// that cannot be read enters with the reason, so that the identity still differs from a readable
// build's.
std::string checker_identity(const sim_toolchain& toolchain, const sim::hw_profile& profile);

}  // namespace aopt::npu
