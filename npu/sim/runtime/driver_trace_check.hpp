// Trusted validation of a delivered trace (issue 17 item 2): the candidate process records its
// own trace, so the checker accepts it only when it is internally consistent and accounts for
// the outputs. Checked per input set:
//   * one trace per block; every GM write inside the buffer it names;
//   * GM bytes written as the instructions say;
//   * the outputs' traced writes, replayed in the order they happened, cover every output byte
//     and leave exactly the delivered bytes (a byte changed after its last traced write, through
//     a raw pointer, is untraced work; a fill such as InitGlobalMemory counts only for the bytes
//     it left);
// and on the timed (fully traced) set, per core in program order:
//   * dependency edges point backwards, UB ranges lie inside the UB, DMA byte counts match bursts;
//   * no UB -> GM copy of bytes no traced operation wrote;
//   * for a computing operator (category other than data_movement), at most half of the bytes
//     copied to GM are input bytes passed through unchanged (a raw in-place computation looks
//     like that), and at most half neither derive from any GM read nor are a constant the
//     vector unit computed (a default fill, the rest of a block around a scalar result; never
//     a vector result of scalar results that read no GM, which may hold anything the program
//     computed, e.g. from raw reads of the inputs).
// An operator needs not read all of its inputs (a kernel reading the rows it needs); the
// roofline's memory bound still counts them.
// Vector instructions reading UB that nothing traced wrote are named as warnings.
// Findings are "malformed_trace" (an inconsistent record) or "untraced_work" (the outputs are
// right but the trace does not account for them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "driver_report.hpp"
#include "driver_spec.hpp"
#include "tensor_check.hpp"

namespace aopt::sim {

// `warnings`, when given, receives the instructions that read UB nothing traced wrote (timed set).
// `initial`, when given, holds per output the bytes it starts with (op.json "init"), or nothing
// for an output that starts as poison: the replay starts from them, and bytes no traced write
// touched keep them.
std::optional<check_failure> check_set_trace(
    const driver_spec& spec, const set_report& set, bool fully_traced,
    std::vector<std::string>* warnings = nullptr,
    const std::vector<std::vector<uint8_t>>* initial = nullptr);

// The finding for outputs that are right while the trace does not account for them; `message`
// says what the trace lacks.
check_failure untraced_work(const std::string& message);

// What each output of `op` holds before the kernel runs on input set `set` (op.json "init"), or
// nothing for an output that starts as poison.
std::vector<std::vector<uint8_t>> initial_outputs(const npu::op_spec& op, uint32_t set);

}  // namespace aopt::sim
