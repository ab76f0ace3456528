// Whether a launch whose blocks wait for each other fits on the cores that run it (issue 30, red
// team 6). SyncAll and IBWait need every block they wait for on a core at the same time: blocks of
// a later wave never start while the first wave waits, so on the hardware the launch hangs. The
// candidate's runtime checks blockDim against the vector cores as the call runs, before it can
// know the cores of the launch's kind; this check reads the delivered traces, where a launch that
// used the cube runs on the profile's cube_cores (timing_model.hpp cores_of_kind). Without it an
// AIC-only matmul with a SyncAll at blockDim 32 scored ok on a profile of 20 AICs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hw_profile.hpp"
#include "trace.hpp"

namespace aopt::sim {

// Why the launch of `traces` hangs on `hw` (its blocks wait for each other and outnumber the
// cores of their kind), or nothing.
std::optional<std::string> find_unfit_waiting_launch(const std::vector<core_trace>& traces,
                                                     const hw_profile& hw);

}  // namespace aopt::sim
