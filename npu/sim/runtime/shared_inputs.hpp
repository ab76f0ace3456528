// Input sets the parent draws once and hands to the reference, candidate and probe processes,
// instead of every process drawing them again: drawing (input_generator.hpp) took about two thirds
// of a candidate's run. The parent (npu/sim/device/input_store.hpp) keeps each input set of an
// operator in a memfd sealed against writing and resizing, and passes it as a descriptor named in
// spec.json's "input_fds" (driver_spec.hpp); the process maps it read-only and reads each input
// where it is mapped (input_set), or copies them out (read_shared_inputs). The seals keep a hostile
// candidate from changing the shared copy, and what it delivers is judged against the inputs the
// reference read (input fingerprints) either way.
//
// Layout of one set: the GM bytes of every input of the operator, in op.json order, back to back
// (npu::tensor_spec::bytes() each, nothing between).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "driver_spec.hpp"
#include "read_mapping.hpp"

namespace aopt::sim {

// The inputs of `op` read from descriptor `fd`. Throws std::runtime_error naming the descriptor
// when it cannot be mapped or its size is not the operator's input bytes.
std::vector<std::vector<uint8_t>> read_shared_inputs(int fd, const npu::op_spec& op);

// Descriptor `fd` read whole once its size is checked against `op`'s input bytes (throws as
// read_shared_inputs), and where each input starts in it (null for an empty input).
read_mapping map_shared_inputs(int fd, const npu::op_spec& op);
std::vector<const uint8_t*> input_starts(const uint8_t* set, const npu::op_spec& op);

// Input set `set` of the spec's operator: from spec.input_fds[set] when the parent passed one,
// drawn here (make_inputs) otherwise.
std::vector<std::vector<uint8_t>> inputs_of(const driver_spec& spec, uint32_t set);

// Input set `set` where it is kept: mapped from spec.input_fds[set] without a copy (a candidate
// copies each input into its simulated GM once, and a copy of the set besides would be as much
// fresh memory again), or drawn here when the parent passed none. Throws as read_shared_inputs.
class input_set {
 public:
  input_set(const driver_spec& spec, uint32_t set);

  // Input i's bytes (op.json order, tensor_spec::bytes() of them; null for an empty input).
  const uint8_t* data(size_t i) const { return data_[i]; }
  // Every input's bytes, in op.json order.
  const std::vector<const uint8_t*>& data() const { return data_; }

 private:
  std::optional<read_mapping> mapped_;
  std::vector<std::vector<uint8_t>> drawn_;
  std::vector<const uint8_t*> data_;
};

}  // namespace aopt::sim
