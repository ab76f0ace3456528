#include "driver_trace_check.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cube_memory.hpp"
#include "driver_expected.hpp"
#include "element_codec.hpp"
#include "gm_allocation.hpp"
#include "launch_layout.hpp"
#include "output_replay.hpp"
#include "vector_loop.hpp"

namespace aopt::sim {
namespace {

std::optional<check_failure> malformed(const std::string& message) {
  return check_failure{"malformed_trace", "the delivered trace is inconsistent: " + message};
}

std::optional<check_failure> untraced(const std::string& message) {
  return untraced_work(message);
}

// Per UB byte: written by a traced operation, computed (last written by the vector or scalar
// unit rather than copied in from GM), derived (depends on some GM read), constant (a vector
// result of initialised bytes none of which depends on a GM read: a Duplicate fill, an index
// ramp, a default value computed from them), opaque (a scalar result that depends on no GM
// read in the trace, or a vector result of one: the scalar unit may hold anything the program
// computed, e.g. from GM it read through raw pointers, so it never becomes a constant).
constexpr uint8_t written = 1, computed = 2, derived = 4, constant = 8, opaque = 16;
constexpr size_t max_uninitialised_warnings = 5;
// The most bytes a scalar store writes per byte of the value it was read as (int8_t -> int64_t).
constexpr uint64_t max_scalar_widening = 8;

struct dataflow_totals {
  uint64_t out_bytes = 0;                  // UB bytes DMA'd to GM
  uint64_t passthrough_bytes = 0;          // ... last written by a GM -> UB copy
  uint64_t underived_bytes = 0;            // ... depending on no GM read, and not a constant
  std::string never_written;               // the first UB -> GM copy of bytes nothing traced wrote
  std::vector<std::string> uninitialised;  // instructions reading UB nothing traced wrote
};

// ORs and ANDs the flags of `n` bytes into `any` and `all`.
AOPT_SIM_VECTOR_LOOP void or_and(const uint8_t* p, size_t n, uint8_t& any, uint8_t& all) {
  uint8_t o = 0, a = 0xff;
  for (size_t k = 0; k < n; ++k) {
    o |= p[k];
    a &= p[k];
  }
  any |= o;
  all &= a;
}

// What a copy of `n` UB bytes to GM carries: their flags ORed into `any`, how many were copied
// in from GM and not computed since (`passthrough`, unless the copy accumulates) and how many
// depend on no GM read and are no constant (`underived`).
AOPT_SIM_VECTOR_LOOP void copied_out(const uint8_t* p, size_t n, bool accumulates, uint8_t& any,
                                     uint64_t& passthrough, uint64_t& underived) {
  uint8_t o = 0;
  uint64_t copied = 0, bare = 0;
  // 16-bit counts per stretch of at most 65535 bytes: narrow lanes vectorise with fewer widenings.
  for (size_t at = 0; at < n; at += 0xffff) {
    const size_t end = std::min(n, at + 0xffff);
    uint16_t stretch_copied = 0, stretch_bare = 0;
    for (size_t k = at; k < end; ++k) {
      const uint8_t f = p[k];
      o |= f;
      stretch_copied += (f & (written | computed)) == written;
      stretch_bare += (f & (derived | constant)) == 0;
    }
    copied += stretch_copied;
    bare += stretch_bare;
  }
  any |= o;
  if (!accumulates) passthrough += copied;
  underived += bare;
}

std::string instruction_name(const instruction& in, size_t i) {
  return std::string(in.api) + " (#" + std::to_string(i) +
         (in.line != 0 ? ", line " + std::to_string(in.line) : "") + ")";
}

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
        copied_out(ub.data() + b, e - b, in.accumulates, any, totals.passthrough_bytes,
                   totals.underived_bytes);
        totals.out_bytes += e - b;
        if ((any & written) == 0 && e > b && totals.never_written.empty()) {
          totals.never_written = instruction_name(in, i) + " copies UB [" + std::to_string(b) +
                                 ", " + std::to_string(e) +
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
      uint8_t any = 0, all = written;
      for (const ub_range& r : in.reads) {
        const auto [b, e] = clamp(r);
        or_and(ub.data() + b, e - b, any, all);
      }
      // Named only while warnings are wanted; counting needs a second pass over the reads.
      uint64_t unwritten = 0;
      uint32_t first_unwritten = 0;
      if ((all & written) == 0 && in.cls != op_class::scalar_ub &&
          totals.uninitialised.size() < max_uninitialised_warnings) {
        for (const ub_range& r : in.reads) {
          const auto [b, e] = clamp(r);
          for (uint32_t k = b; k < e; ++k) {
            if ((ub[k] & written) == 0 && unwritten++ == 0) first_unwritten = k;
          }
        }
      }
      flags |= any & derived;
      // The scalar unit's accesses coalesce into one instruction: one GetValue of a loaded byte
      // must not make every byte it stores derived. Its stores count as derived only as far as
      // it read derived bytes: a value it read is stored at most once, widened at most from one
      // byte to a 64-bit scalar (an argmax reads the uint16_t index WholeReduceMax left and
      // stores it as int32_t), so a store can carry no more of the GM data than that.
      if (in.cls == op_class::scalar_ub && (flags & derived) != 0) {
        uint64_t derived_read = 0, stored = 0;
        for (const ub_range& r : in.reads) {
          const auto [b, e] = clamp(r);
          for (uint32_t k = b; k < e; ++k) derived_read += (ub[k] & derived) != 0;
        }
        for (const ub_range& r : in.writes) {
          const auto [b, e] = clamp(r);
          stored += e - b;
        }
        if (derived_read * max_scalar_widening < stored)
          flags = static_cast<uint8_t>((flags & ~derived) | opaque);
      }
      // A scalar result may hold anything the program computed (opaque, and so is a vector
      // result of one); only a vector result of initialised bytes that neither depend on a GM
      // read nor are opaque is a constant.
      const bool scalar = in.cls == op_class::scalar_ub;
      if ((any & derived) == 0 && (scalar || (any & opaque) != 0)) flags |= opaque;
      if (!scalar && (any & (derived | opaque)) == 0 && (all & written) != 0) flags |= constant;
      // Coalesced scalar reads are approximate ranges: only vector reads are named.
      if (unwritten != 0) {
        totals.uninitialised.push_back(
            instruction_name(in, i) + " reads " + std::to_string(unwritten) +
            " bytes of UB that no traced operation wrote, the first at " +
            std::to_string(first_unwritten) +
            ": on the hardware they hold stale data (here poison, a large finite value)");
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
    const bool scalar = in.cls == op_class::scalar_ub || in.cls == op_class::scalar_gm;
    // The scalar unit moves at most 8 bytes per access (trace_recorder.cpp prices it so).
    if (scalar && in.count < (in.bytes + 7) / 8) {
      return malformed(where + std::to_string(i) + " (" + in.api + ") moves " +
                       std::to_string(in.bytes) + " bytes in " + std::to_string(in.count) +
                       " scalar accesses of at most 8 bytes");
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

check_failure untraced_work(const std::string& message) {
  return check_failure{"untraced_work",
                       "the outputs are right but the trace does not account for them (work "
                       "done outside the traced tensor API, e.g. through raw pointers): " +
                           message};
}

std::vector<std::vector<uint8_t>> initial_outputs(const npu::op_spec& op, uint32_t set) {
  std::vector<std::vector<uint8_t>> out(op.outputs.size());
  std::vector<std::vector<uint8_t>> inputs;
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    const npu::tensor_spec& t = op.outputs[i];
    if (t.init == npu::tensor_spec::initial::value) {
      out[i].resize(t.bytes());
      const size_t size = npu::dtype_size(t.type);
      for (int64_t e = 0; e < t.numel(); ++e) {
        encode_element(t.init_value, t.type, out[i].data() + static_cast<size_t>(e) * size);
      }
    } else if (t.init == npu::tensor_spec::initial::copy) {
      if (inputs.empty()) inputs = make_inputs(op, set);
      for (size_t k = 0; k < op.inputs.size(); ++k) {
        if (op.inputs[k].name == t.init_source && inputs[k].size() == t.bytes()) out[i] = inputs[k];
      }
    }
  }
  return out;
}

std::optional<check_failure> check_set_trace(const driver_spec& spec, const set_report& set,
                                             bool fully_traced, std::vector<std::string>* warnings,
                                             const std::vector<std::vector<uint8_t>>* initial) {
  const npu::op_spec& op = spec.op;
  if (set.aiv_per_aic > 2) {
    return malformed(std::to_string(set.aiv_per_aic) + " AIVs per AIC (a MIX kernel has 1 or 2)");
  }
  const launch_layout layout{set.block_dim, set.aiv_per_aic};
  if (set.traces.size() != layout.cores()) {
    return malformed(std::to_string(set.traces.size()) + " core traces for blockDim " +
                     std::to_string(set.block_dim) +
                     (layout.mixed()
                          ? " of a MIX kernel (" + std::to_string(layout.cores()) + " cores)"
                          : std::string()));
  }
  // GM regions in kernel-argument order: inputs, outputs, workspace, tiling.
  std::vector<uint64_t> region_bytes;
  for (const auto& t : op.inputs) region_bytes.push_back(t.bytes());
  for (const auto& t : op.outputs) region_bytes.push_back(t.bytes());
  region_bytes.push_back(set.workspace_bytes);
  region_bytes.push_back(set.tiling_data_size);
  const size_t first_output = op.inputs.size();

  std::vector<output_replay> replays;
  replays.reserve(op.outputs.size());
  for (size_t i = 0; i < op.outputs.size(); ++i) {
    replays.emplace_back(op.outputs[i].bytes(), i < set.outputs.size() ? &set.outputs[i] : nullptr);
  }
  std::vector<const gm_write*> output_writes;
  uint64_t write_bytes = 0, listed_write_bytes = 0;
  // UB and, on cube cores, L1/L0A/L0B/L0C/BT after it in one address space (cube_memory.hpp).
  const uint32_t local_bytes = kernel::memory_map_of(spec.hw).total;
  for (size_t b = 0; b < set.traces.size(); ++b) {
    const core_trace& t = set.traces[b];
    const core_identity id = layout.identity(static_cast<uint32_t>(b));
    if (t.block_idx != b || t.kind != id.kind || (layout.mixed() && t.group != id.group))
      return malformed("trace " + std::to_string(b) + " is of another core");
    write_bytes += t.gm_write_bytes;
    for (const gm_write& w : t.gm_writes) {
      if (w.region >= region_bytes.size() || w.bursts == 0) {
        return malformed("a GM write names no buffer the kernel was given");
      }
      // A write may reach into the buffer's allocation padding, as the runtime lets it (the
      // replay below keeps the buffer's own bytes).
      const uint64_t limit = region_bytes[w.region] + gm_padding_bytes(region_bytes[w.region]);
      if (!w.inside(limit)) {
        return malformed("block " + std::to_string(b) + " writes GM outside buffer " +
                         std::to_string(w.region) + " (" + std::to_string(limit) + " bytes)");
      }
      const uint64_t bytes = uint64_t{w.bursts} * w.burst_bytes;
      listed_write_bytes += bytes;
      const bool output = w.region >= first_output && w.region < first_output + op.outputs.size();
      if (w.data.size() != bytes) {
        return malformed("block " + std::to_string(b) + ": a GM write of " + std::to_string(bytes) +
                         " bytes carries " + std::to_string(w.data.size()) + " bytes of data");
      }
      if (output) output_writes.push_back(&w);
    }
    if (fully_traced) {
      if (auto f = check_records(t, local_bytes, static_cast<uint32_t>(b))) return f;
    }
  }
  if (listed_write_bytes != write_bytes) {
    return malformed("its GM writes add up to " + std::to_string(listed_write_bytes) +
                     " bytes, its byte count says " + std::to_string(write_bytes));
  }
  // The order the writes happened in over all blocks (a block's own writes keep theirs),
  // replayed backwards so that the last write of a byte settles it (output_replay.hpp).
  std::stable_sort(output_writes.begin(), output_writes.end(),
                   [](const gm_write* a, const gm_write* b) { return a->seq < b->seq; });
  for (auto w = output_writes.rbegin(); w != output_writes.rend(); ++w) {
    output_replay& r = replays[(*w)->region - first_output];
    for (uint32_t k = (*w)->bursts; k-- > 0;) {
      r.settle_write((*w)->offset + (*w)->stride * k,
                     (*w)->data.data() + uint64_t{k} * (*w)->burst_bytes, (*w)->burst_bytes);
    }
  }
  for (size_t i = 0; i < replays.size(); ++i) {
    // Where no write went, the output holds what it held as the kernel started, when known.
    if (initial != nullptr && i < initial->size() &&
        (*initial)[i].size() == op.outputs[i].bytes() && op.outputs[i].bytes() != 0) {
      replays[i].settle_initial((*initial)[i]);
    }
    if (const uint64_t count = replays[i].uncovered_bytes(); count != 0) {
      return untraced("output " + op.outputs[i].name + ": " + std::to_string(count) +
                      " bytes (the first at byte " + std::to_string(replays[i].first_uncovered()) +
                      ") were written by no traced operation");
    }
    const uint64_t changed = replays[i].first_changed();
    if (changed == output_replay::none) continue;
    return untraced("output " + op.outputs[i].name + ": byte " + std::to_string(changed) +
                    " holds " + std::to_string(set.outputs[i][changed]) +
                    " as delivered, but the last traced write of it left " +
                    std::to_string(replays[i].replayed_value()) +
                    ": the output was changed after the traced API wrote it");
  }
  if (!fully_traced) return std::nullopt;

  dataflow_totals totals;
  for (size_t b = 0; b < set.traces.size(); ++b) {
    const size_t before = totals.uninitialised.size();
    dataflow(set.traces[b], local_bytes, totals);
    if (warnings == nullptr) continue;
    for (size_t k = before; k < totals.uninitialised.size(); ++k) {
      warnings->push_back("block " + std::to_string(b) + ": " + totals.uninitialised[k]);
    }
  }
  if (!totals.never_written.empty()) return untraced(totals.never_written);
  if (op.category != "data_movement" && totals.out_bytes > 0) {
    if (totals.passthrough_bytes * 2 > totals.out_bytes) {
      return untraced(std::to_string(totals.passthrough_bytes) + " of the " +
                      std::to_string(totals.out_bytes) +
                      " bytes it copies to GM are input bytes no traced operation computed on, "
                      "yet the operator computes its outputs (its op.json category is \"" +
                      op.category +
                      "\"; an operator whose outputs are its input bytes moved, gathered or "
                      "rearranged, such as a gather, embedding, index_select, transpose, concat, "
                      "slice or pad, declares \"category\": \"data_movement\")");
    }
    if (totals.underived_bytes * 2 > totals.out_bytes) {
      return untraced(std::to_string(totals.underived_bytes) + " of the " +
                      std::to_string(totals.out_bytes) +
                      " bytes it copies to GM depend on no GM read in the trace and are no "
                      "constant the vector unit computed");
    }
  }
  return std::nullopt;
}

}  // namespace aopt::sim
