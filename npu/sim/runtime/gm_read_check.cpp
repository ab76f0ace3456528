#include "gm_read_check.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "driver_trace_check.hpp"
#include "element_codec.hpp"
#include "gm_allocation.hpp"
#include "huge_page_memory.hpp"
#include "runs_digest.hpp"

namespace aopt::sim {
namespace {

// One traced GM access of a block, in the launch's order.
struct gm_access {
  uint64_t seq = 0;
  uint32_t block = 0;
  const gm_write* write = nullptr;  // exactly one of write and read
  const gm_read* read = nullptr;
};

// The tensor, then its padding and over-read zone, on huge pages (huge_page_memory.hpp): an
// operator's images are tens of MiB of fresh memory.
struct gm_image {
  std::string name;
  huge_page_memory memory;
  uint8_t* data() { return memory.data(); }
  const uint8_t* data() const { return memory.data(); }
  uint64_t size() const { return memory.size(); }
};

std::vector<gm_image> launch_images(const npu::op_spec& op, const set_report& set,
                                    uint32_t set_index, const std::vector<const uint8_t*>& inputs,
                                    const std::vector<std::vector<uint8_t>>& initial) {
  std::vector<gm_image> images;
  images.reserve(op.inputs.size() + op.outputs.size() + 2);
  auto add = [&](const std::string& name, uint64_t bytes) -> uint8_t* {
    images.push_back({name, huge_page_memory(bytes + gm_tail_bytes(bytes))});
    uint8_t* image = images.back().data();
    if (image != nullptr) std::memset(image + bytes, gm_tail_poison_byte, gm_tail_bytes(bytes));
    return image;
  };
  for (size_t i = 0; i < op.inputs.size(); ++i) {
    const uint64_t bytes = op.inputs[i].bytes();
    uint8_t* image = add("input " + op.inputs[i].name, bytes);
    if (i < inputs.size() && inputs[i] != nullptr && bytes != 0) {
      std::memcpy(image, inputs[i], bytes);
    } else if (bytes != 0) {
      std::memset(image, gm_tail_poison_byte, bytes);
    }
  }
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const npu::tensor_spec& t = op.outputs[i];
    uint8_t* image = add("output " + t.name, t.bytes());
    if (i < initial.size() && initial[i].size() == t.bytes() && t.bytes() != 0) {
      std::memcpy(image, initial[i].data(), t.bytes());
    } else if (t.bytes() != 0) {
      fill_poison(image, t.type, static_cast<size_t>(t.numel()), set_index);
    }
  }
  uint8_t* workspace = add("the workspace", set.workspace_bytes);
  if (set.workspace_bytes != 0) std::memset(workspace, workspace_poison_byte, set.workspace_bytes);
  // The tiling argument as the tiling function left it: a kernel that wrote it through a raw
  // pointer and loads it back has computed behind the simulator's back like any other buffer.
  uint8_t* tiling = add("the tiling data", set.tiling_bytes.size());
  if (!set.tiling_bytes.empty())
    std::memcpy(tiling, set.tiling_bytes.data(), set.tiling_bytes.size());
  return images;
}

}  // namespace

bool has_gm_reads(const set_report& set) {
  return std::any_of(set.traces.begin(), set.traces.end(),
                     [](const core_trace& t) { return !t.gm_reads.empty(); });
}

std::optional<check_failure> check_gm_reads(const npu::op_spec& op, const set_report& set,
                                            uint32_t set_index,
                                            const std::vector<const uint8_t*>& inputs,
                                            const std::vector<std::vector<uint8_t>>& initial) {
  std::vector<gm_image> images = launch_images(op, set, set_index, inputs, initial);
  std::vector<gm_access> order;
  for (size_t b = 0; b < set.traces.size(); ++b) {
    const core_trace& t = set.traces[b];
    for (const gm_write& w : t.gm_writes) {
      if (w.region < images.size()) order.push_back({w.seq, static_cast<uint32_t>(b), &w, nullptr});
    }
    for (const gm_read& r : t.gm_reads)
      order.push_back({r.seq, static_cast<uint32_t>(b), nullptr, &r});
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const gm_access& a, const gm_access& b) { return a.seq < b.seq; });
  for (const gm_access& a : order) {
    if (a.write != nullptr) {
      const gm_write& w = *a.write;
      uint8_t* image = images[w.region].data();
      for (uint32_t k = 0; k < w.bursts && w.data.size() == uint64_t{w.burst_bytes} * w.bursts;
           ++k) {
        std::memcpy(image + w.offset + w.stride * k, w.data.data() + uint64_t{k} * w.burst_bytes,
                    w.burst_bytes);
      }
      continue;
    }
    const gm_read& r = *a.read;
    const std::string where = "block " + std::to_string(a.block);
    if (r.region >= images.size() || !r.inside(images[r.region].size())) {
      return check_failure{"malformed_trace", "the delivered trace is inconsistent: " + where +
                                                  " reads GM outside every buffer it was given"};
    }
    const gm_image& image = images[r.region];
    if (runs_fingerprint(image.data() + r.offset, r.stride, r.burst_bytes, r.bursts) == r.digest) {
      continue;
    }
    return untraced_work(
        where + " reads " + std::to_string(uint64_t{r.burst_bytes} * r.bursts) + " bytes of " +
        image.name + " at byte " + std::to_string(r.offset) +
        " that are neither what the operator was given nor what a traced write left there: "
        "they were written behind the simulator's back, and the work that made them is not "
        "in the trace");
  }
  return std::nullopt;
}

}  // namespace aopt::sim
