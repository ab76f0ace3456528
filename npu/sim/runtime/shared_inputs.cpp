#include "shared_inputs.hpp"

#include <sys/stat.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "driver_expected.hpp"
#include "read_mapping.hpp"

namespace aopt::sim {

std::vector<std::vector<uint8_t>> read_shared_inputs(int fd, const npu::op_spec& op) {
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
  const read_mapping mapped(fd, want);
  std::vector<std::vector<uint8_t>> inputs;
  uint64_t offset = 0;
  for (const auto& t : op.inputs) {
    const uint8_t* begin = mapped.data() == nullptr ? nullptr : mapped.data() + offset;
    inputs.emplace_back(begin, begin == nullptr ? nullptr : begin + t.bytes());
    offset += t.bytes();
  }
  return inputs;
}

std::vector<std::vector<uint8_t>> inputs_of(const driver_spec& spec, uint32_t set) {
  if (set < spec.input_fds.size()) return read_shared_inputs(spec.input_fds[set], spec.op);
  return make_inputs(spec.op, set);
}

}  // namespace aopt::sim
