// The trusted checker's replay of a set's GM reads (trace.hpp gm_read). It rebuilds every GM
// buffer the kernel was given as the driver laid it out (gm_allocation.hpp): the inputs as drawn,
// each output as op.json initialises it or poisoned, the workspace poisoned, the tiling data as
// the tiling function left it (set_report::tiling_bytes). It then applies every block's traced
// writes (their bytes) and checks every traced read (its fingerprint) in the order they happened
// over all blocks. A read that saw other bytes read what the kernel wrote
// behind the simulator's back: computed through raw pointers into an input, an output or the
// workspace, then loaded with a traced copy as if the inputs held it. The trace then prices less
// work than the kernel did, so the finding is "untraced_work".
//
// The tiling data is replayed like the rest: a kernel that computed into it through raw pointers
// and loaded it with a traced copy laundered its work (GET_TILING_DATA's own read is a copy of
// the bytes as given and is not traced). A honest kernel never fails this check: every GM byte it
// reads is one the inputs, the initial contents, the tiling function or a traced write put there.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "driver_report.hpp"
#include "npu/protocol/op_spec.hpp"
#include "tensor_check.hpp"

namespace aopt::sim {

// `inputs`: where the GM bytes of every input of input set `set_index` are (make_inputs; each
// op.inputs[i].bytes() long, null for an empty input); `initial`: per
// output its initial bytes, or nothing for a poisoned one (initial_outputs). REQUIRES: the set's
// traces passed check_set_trace (every write inside its buffer, with its bytes).
std::optional<check_failure> check_gm_reads(const npu::op_spec& op, const set_report& set,
                                            uint32_t set_index,
                                            const std::vector<const uint8_t*>& inputs,
                                            const std::vector<std::vector<uint8_t>>& initial);

// Whether any trace of `set` recorded a GM read (only then are the inputs worth drawing).
bool has_gm_reads(const set_report& set);

}  // namespace aopt::sim
