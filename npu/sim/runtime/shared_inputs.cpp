#include "shared_inputs.hpp"

#include <sys/stat.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "driver_expected.hpp"
#include "read_mapping.hpp"

namespace aopt::sim {

read_mapping map_shared_inputs(int fd, const npu::op_spec& op) {
  uint64_t want = 0;
  for (const auto& t : op.inputs) want += t.bytes();
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw std::runtime_error("input descriptor " + std::to_string(fd) + ": " +
                             std::strerror(errno));
  }
  if (static_cast<uint64_t>(st.st_size) != want) {
    throw std::runtime_error("input descriptor " + std::to_string(fd) + " holds " +
                             std::to_string(st.st_size) + " bytes; the operator's inputs take " +
                             std::to_string(want));
  }
  return read_mapping(fd, want);
}

std::vector<const uint8_t*> input_starts(const uint8_t* set, const npu::op_spec& op) {
  std::vector<const uint8_t*> starts;
  uint64_t offset = 0;
  for (const auto& t : op.inputs) {
    starts.push_back(set == nullptr ? nullptr : set + offset);
    offset += t.bytes();
  }
  return starts;
}

std::vector<std::vector<uint8_t>> read_shared_inputs(int fd, const npu::op_spec& op) {
  const read_mapping mapped = map_shared_inputs(fd, op);
  const std::vector<const uint8_t*> starts = input_starts(mapped.data(), op);
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const uint8_t* begin = starts[i];
    inputs.emplace_back(begin, begin == nullptr ? nullptr : begin + op.inputs[i].bytes());
  }
  return inputs;
}

std::vector<std::vector<uint8_t>> inputs_of(const driver_spec& spec, uint32_t set) {
  if (set < spec.input_fds.size()) return read_shared_inputs(spec.input_fds[set], spec.op);
  return make_inputs(spec.op, set);
}

input_set::input_set(const driver_spec& spec, uint32_t set) {
  if (set < spec.input_fds.size()) {
    mapped_.emplace(map_shared_inputs(spec.input_fds[set], spec.op));
    data_ = input_starts(mapped_->data(), spec.op);
    return;
  }
  drawn_ = make_inputs(spec.op, set);
  for (const auto& input : drawn_) data_.push_back(input.empty() ? nullptr : input.data());
}

}  // namespace aopt::sim
