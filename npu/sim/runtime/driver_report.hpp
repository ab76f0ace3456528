// What a candidate process delivers to the trusted checker (issue 17): per input set, what its
// tiling function decided, the raw output bytes, a fingerprint of each input after the run and
// the blocks' instruction traces (full for the timed first set; GM writes and byte counts for the
// others). It carries no verdict: status and latency are decided by driver_judge.hpp from this,
// the reference's expected outputs and the operator spec.
//
// A candidate-side failure (tiling failed, a simulator check, an exception in the kernel) is
// reported as such; a candidate can only hurt itself with one.
//
// Wire format (driver_codec.hpp): "AOPTRPT4", diagnostics, warnings, sets, API name table,
// "AOPTEND1". Extending the trace: add the field to encode/decode here, bump the magic.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "trace.hpp"

namespace aopt::sim {

struct set_report {
  // Empty when the set ran to the end; else "runtime_error"/"precision_error" with a kind.
  std::string failed_status;
  std::string failed_kind;
  std::string message;
  uint32_t block_dim = 0;
  uint32_t aiv_per_aic = 0;  // a MIX launch's AIVs per AIC (launch_layout.hpp), else 0
  uint64_t tiling_key = 0;
  uint64_t workspace_bytes = 0;
  uint64_t tiling_data_size = 0;
  // The kernel's tiling argument as the tiling function left it (its full capacity, poisoned
  // past tiling_data_size): what the checker replays the kernel's reads of it against.
  std::vector<uint8_t> tiling_bytes;
  std::vector<byte_block> outputs;           // op.json order, the GM bytes after the run
  std::vector<uint64_t> input_fingerprints;  // of each input's GM bytes after the run
  // The GM bytes after the run of each input the kernel changed (empty for the others): what
  // the checker names in its input_modified message.
  std::vector<byte_block> changed_inputs;
  std::vector<core_trace> traces;  // one per core of the launch's layout
};

struct run_report {
  std::vector<std::string> diagnostics;
  // Findings on the kernel that do not fail it (a read past a GM tensor's padding, a queue
  // tensor held to the end), "block N: ..." each, the same finding once.
  std::vector<std::string> warnings;
  std::vector<set_report> sets;
  // Owns the API names the decoded traces point to (instruction::api); moving the report keeps
  // them in place.
  std::deque<std::string> api_names;
};

class byte_writer;

std::string encode_report(const run_report& report);
// The same bytes, put to `w` (a streaming writer sends them as they come).
void encode_report(const run_report& report, byte_writer& w);
// How a decoded report holds its outputs, changed inputs and GM write data.
enum class bulk_bytes {
  copied,  // owned by the report
  viewed,  // views into `bytes`, which must then outlive the report (byte_block.hpp)
};

// Throws malformed_delivery naming the field that is missing or inconsistent.
run_report decode_report(std::string_view bytes, bulk_bytes bulk = bulk_bytes::copied);

}  // namespace aopt::sim
