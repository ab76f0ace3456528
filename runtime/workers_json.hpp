// The remote workers' part of the device pool's counts as JSON (issue 19), for `aopt run
// --json`'s "pool" and the daemon's GET /api/v1/workers: workers joined now, leases queued again
// because their worker disappeared, late duplicates, refused workers, packages sent, and each
// slot owner ("local" or a worker, departed ones included with 0 slots).
#pragma once

#include <nlohmann/json.hpp>

#include "actors/messages.hpp"

namespace aopt::runtime {

nlohmann::json workers_json(const actors::pool_stats& pool);

}  // namespace aopt::runtime
