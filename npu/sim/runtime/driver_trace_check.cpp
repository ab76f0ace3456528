#include "driver_trace_check.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "cube_memory.hpp"

namespace aopt::sim {
namespace {

std::optional<check_failure> malformed(const std::string& message) {
  return check_failure{"malformed_trace", "the delivered trace is inconsistent: " + message};
}

std::optional<check_failure> untraced(const std::string& message) {
  return check_failure{"untraced_work",
                       "the outputs are right but the trace does not account for them (work "
                       "done outside the traced tensor API, e.g. through raw pointers): " +
                           message};
}

// Marks bytes of one GM buffer; finds the first byte left unmarked.
class byte_cover {
 public:
  explicit byte_cover(uint64_t bytes) : bytes_(bytes), words_((bytes + 63) / 64, 0) {}
  void mark(uint64_t begin, uint64_t end) {
    end = std::min(end, bytes_);
    while (begin < end && begin % 64 != 0) set(begin++);
    while (begin + 64 <= end) {
      words_[begin / 64] = ~uint64_t{0};
      begin += 64;
    }
    while (begin < end) set(begin++);
  }
  // The first unmarked byte and how many are unmarked, or {bytes, 0}.
  std::pair<uint64_t, uint64_t> gaps() const {
    uint64_t first = bytes_, count = 0;
    for (uint64_t b = 0; b < bytes_; ++b) {
      if (words_[b / 64] == ~uint64_t{0} && b % 64 == 0 && b + 64 <= bytes_) {
        b += 63;
        continue;
      }
      if ((words_[b / 64] >> (b % 64) & 1) == 0) {
        if (first == bytes_) first = b;
        ++count;
      }
    }
    return {first, count};
  }

 private:
  void set(uint64_t b) { words_[b / 64] |= uint64_t{1} << (b % 64); }
  uint64_t bytes_;
  std::vector<uint64_t> words_;
};

// Per UB byte: written by a traced operation, computed (last written by the vector or scalar
// unit rather than copied in from GM), derived (depends on some GM read).
constexpr uint8_t written = 1, computed = 2, derived = 4;

struct dataflow_totals {
  uint64_t out_bytes = 0;          // UB bytes DMA'd to GM
  uint64_t passthrough_bytes = 0;  // ... last written by a GM -> UB copy
  uint64_t underived_bytes = 0;    // ... depending on no GM read
  std::string never_written;       // the first UB -> GM copy of bytes nothing traced wrote
};

void dataflow(const core_trace& t, uint32_t ub_bytes, dataflow_totals& totals) {
  std::vector<uint8_t> ub(ub_bytes, 0);
  auto clamp = [&](const ub_range& r) {
    return std::make_pair(std::min(r.begin, ub_bytes),
                          std::min(std::max(r.begin, r.end), ub_bytes));
  };
  for (size_t i = 0; i < t.instructions.size(); ++i) {
    const instruction& in = t.instructions[i];
    if (in.cls == op_class::dma_out || in.cls == op_class::cube_fixpipe) {
      for (const ub_range& r : in.reads) {
        const auto [b, e] = clamp(r);
        uint8_t any = 0;
        for (uint32_t k = b; k < e; ++k) {
          const uint8_t f = ub[k];
          any |= f;
          totals.passthrough_bytes += (f & (written | computed)) == written;
          totals.underived_bytes += (f & derived) == 0;
        }
        totals.out_bytes += e - b;
        if ((any & written) == 0 && e > b && totals.never_written.empty()) {
          totals.never_written = std::string(in.api) + " (#" + std::to_string(i) +
                                 (in.line != 0 ? ", line " + std::to_string(in.line) : "") +
                                 ") copies UB [" + std::to_string(b) + ", " + std::to_string(e) +
                                 ") to GM, which no traced operation wrote";
        }
      }
      continue;
    }
    uint8_t flags = written;
    if (in.cls == op_class::dma_in || in.cls == op_class::scalar_gm) {
      flags |= derived;
    } else {
      flags |= computed;
      for (const ub_range& r : in.reads) {
        const auto [b, e] = clamp(r);
        for (uint32_t k = b; k < e && (flags & derived) == 0; ++k) flags |= ub[k] & derived;
      }
    }
    if (in.cls == op_class::dma_local || in.cls == op_class::cube_load)
      flags = static_cast<uint8_t>(flags & ~computed);
    for (const ub_range& r : in.writes) {
      const auto [b, e] = clamp(r);
      if (e > b) std::fill(ub.begin() + b, ub.begin() + e, flags);
    }
  }
}

std::optional<check_failure> check_records(const core_trace& t, uint32_t ub_bytes, uint32_t block) {
  const std::string where = "block " + std::to_string(block) + ": instruction #";
  for (size_t i = 0; i < t.instructions.size(); ++i) {
    const instruction& in = t.instructions[i];
    for (const auto* deps : {&in.deps, &in.auto_deps}) {
      for (uint32_t d : *deps) {
        if (d >= i) return malformed(where + std::to_string(i) + " depends on a later instruction");
      }
    }
    for (const auto* ranges : {&in.reads, &in.writes}) {
      for (const ub_range& r : *ranges) {
        if (r.begin > r.end || r.end > ub_bytes) {
          return malformed(where + std::to_string(i) + " touches UB [" + std::to_string(r.begin) +
                           ", " + std::to_string(r.end) + ") outside the " +
                           std::to_string(ub_bytes) + "-byte UB");
        }
      }
    }
    const bool dma = in.cls == op_class::dma_in || in.cls == op_class::dma_out;
    if (dma && in.bytes != uint64_t{in.bursts} * in.min_burst_bytes) {
      return malformed(where + std::to_string(i) + " (" + in.api + ") moves " +
                       std::to_string(in.bytes) + " bytes in " + std::to_string(in.bursts) +
                       " bursts of " + std::to_string(in.min_burst_bytes));
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<check_failure> check_set_trace(const driver_spec& spec, const set_report& set,
                                             bool fully_traced) {
  const npu::op_spec& op = spec.op;
  if (set.traces.size() != set.block_dim) {
    return malformed(std::to_string(set.traces.size()) + " block traces for blockDim " +
                     std::to_string(set.block_dim));
  }
  // GM regions in kernel-argument order: inputs, outputs, workspace, tiling.
  std::vector<uint64_t> region_bytes;
  for (const auto& t : op.inputs) region_bytes.push_back(t.bytes());
  for (const auto& t : op.outputs) region_bytes.push_back(t.bytes());
  region_bytes.push_back(set.workspace_bytes);
  region_bytes.push_back(set.tiling_data_size);
  const size_t first_output = op.inputs.size();

  std::vector<byte_cover> covers;
  for (const auto& t : op.outputs) covers.emplace_back(t.bytes());
  // UB and, on cube cores, L1/L0A/L0B/L0C/BT after it in one address space (cube_memory.hpp).
  const uint32_t local_bytes = kernel::memory_map_of(spec.hw).total;
  uint64_t read_bytes = 0, write_bytes = 0, listed_write_bytes = 0;
  for (size_t b = 0; b < set.traces.size(); ++b) {
    const core_trace& t = set.traces[b];
    if (t.block_idx != b) return malformed("trace " + std::to_string(b) + " is of another block");
    read_bytes += t.gm_read_bytes;
    write_bytes += t.gm_write_bytes;
    for (const gm_write& w : t.gm_writes) {
      if (w.region >= region_bytes.size() || w.bursts == 0) {
        return malformed("a GM write names no buffer the kernel was given");
      }
      const uint64_t limit = region_bytes[w.region];
      const uint64_t span_start = w.offset;
      const bool fits = w.bursts == 1 || w.stride <= limit;
      const uint64_t last = fits ? span_start + w.stride * (w.bursts - 1) : limit;
      if (!fits || span_start > limit || last > limit || w.burst_bytes > limit - last) {
        return malformed("block " + std::to_string(b) + " writes GM outside buffer " +
                         std::to_string(w.region) + " (" + std::to_string(limit) + " bytes)");
      }
      listed_write_bytes += uint64_t{w.bursts} * w.burst_bytes;
      if (w.region >= first_output && w.region < first_output + op.outputs.size()) {
        byte_cover& c = covers[w.region - first_output];
        for (uint32_t k = 0; k < w.bursts; ++k) {
          c.mark(w.offset + w.stride * k, w.offset + w.stride * k + w.burst_bytes);
        }
      }
    }
    if (fully_traced) {
      if (auto f = check_records(t, local_bytes, static_cast<uint32_t>(b))) return f;
    }
  }
  if (listed_write_bytes != write_bytes) {
    return malformed("its GM writes add up to " + std::to_string(listed_write_bytes) +
                     " bytes, its byte count says " + std::to_string(write_bytes));
  }
  uint64_t output_bytes = 0;
  for (const auto& t : op.outputs) output_bytes += t.bytes();
  if (write_bytes < output_bytes || read_bytes + write_bytes < op.io_bytes()) {
    return untraced("it moves " + std::to_string(read_bytes) + " bytes GM -> UB and " +
                    std::to_string(write_bytes) + " bytes UB -> GM; the operator's inputs and " +
                    "outputs alone are " + std::to_string(op.io_bytes()) + " bytes");
  }
  for (size_t i = 0; i < covers.size(); ++i) {
    const auto [first, count] = covers[i].gaps();
    if (count != 0) {
      return untraced("output " + op.outputs[i].name + ": " + std::to_string(count) +
                      " bytes (the first at byte " + std::to_string(first) +
                      ") were written by no traced operation");
    }
  }
  if (!fully_traced) return std::nullopt;

  dataflow_totals totals;
  for (const core_trace& t : set.traces) dataflow(t, local_bytes, totals);
  if (!totals.never_written.empty()) return untraced(totals.never_written);
  if (op.category != "data_movement" && totals.out_bytes > 0) {
    if (totals.passthrough_bytes * 2 > totals.out_bytes) {
      return untraced(std::to_string(totals.passthrough_bytes) + " of the " +
                      std::to_string(totals.out_bytes) +
                      " bytes it copies to GM are input bytes no traced operation computed on, "
                      "yet the operator computes its outputs");
    }
    if (totals.underived_bytes * 2 > totals.out_bytes) {
      return untraced(std::to_string(totals.underived_bytes) + " of the " +
                      std::to_string(totals.out_bytes) +
                      " bytes it copies to GM depend on no GM read in the trace");
    }
  }
  return std::nullopt;
}

}  // namespace aopt::sim
