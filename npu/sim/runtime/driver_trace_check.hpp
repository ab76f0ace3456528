// Trusted validation of a delivered trace (issue 17 item 2): the candidate process records its
// own trace, so the checker accepts it only when it is internally consistent and accounts for
// the outputs. Checked per input set:
//   * one trace per block; every GM write inside the buffer it names;
//   * GM bytes written as the instructions say, and in total at least the operator's outputs;
//     reads and writes together at least its minimal GM traffic (inputs + outputs);
//   * every output byte covered by a traced GM write (raw-pointer stores are not);
// and on the timed (fully traced) set, per core in program order:
//   * dependency edges point backwards, UB ranges lie inside the UB, DMA byte counts match bursts;
//   * no UB -> GM copy of bytes no traced operation wrote;
//   * for a computing operator (category other than data_movement), at most half of the bytes
//     copied to GM are input bytes passed through unchanged (a raw in-place computation looks
//     like that), and at most half do not derive from any GM read.
// Findings are "malformed_trace" (an inconsistent record) or "untraced_work" (the outputs are
// right but the trace does not account for them).
#pragma once

#include <optional>

#include "driver_report.hpp"
#include "driver_spec.hpp"
#include "tensor_check.hpp"

namespace aopt::sim {

std::optional<check_failure> check_set_trace(const driver_spec& spec, const set_report& set,
                                             bool fully_traced);

}  // namespace aopt::sim
