#include "shared_inputs.hpp"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "driver_expected.hpp"

namespace aopt::sim {

namespace {

// A read-only mapping of a whole descriptor, unmapped when it goes.
class read_mapping {
 public:
  read_mapping(int fd, uint64_t bytes) : bytes_(bytes) {
    if (bytes_ == 0) return;
    void* p = ::mmap(nullptr, bytes_, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
      throw std::runtime_error("input descriptor " + std::to_string(fd) +
                               ": cannot map it: " + std::strerror(errno));
    }
    data_ = static_cast<const uint8_t*>(p);
  }
  read_mapping(const read_mapping&) = delete;
  read_mapping& operator=(const read_mapping&) = delete;
  ~read_mapping() {
    if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), bytes_);
  }
  const uint8_t* data() const { return data_; }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t bytes_ = 0;
};

}  // namespace

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
