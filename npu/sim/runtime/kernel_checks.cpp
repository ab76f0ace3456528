#include <algorithm>
#include <optional>
#include <utility>

#include "kernel_state.hpp"

namespace aopt::sim::kernel {

std::string where(const char* api, aopt_sim::rt::call_site site) {
  if (site.line == 0) return api;
  return cat(api, " (line ", site.line, ")");
}

void fail(const char* kind, const std::string& message) {
  throw sim_error(kind, message);
}

const char* dtype_name(aopt_sim::rt::dtype t) {
  using aopt_sim::rt::dtype;
  switch (t) {
    case dtype::f32:
      return "float";
    case dtype::f16:
      return "half";
    case dtype::bf16:
      return "bfloat16_t";
    case dtype::i8:
      return "int8_t";
    case dtype::u8:
      return "uint8_t";
    case dtype::i16:
      return "int16_t";
    case dtype::u16:
      return "uint16_t";
    case dtype::i32:
      return "int32_t";
    case dtype::u32:
      return "uint32_t";
    case dtype::i64:
      return "int64_t";
    case dtype::u64:
      return "uint64_t";
    case dtype::other:
      break;
  }
  return "an unsupported element type";
}

uint32_t dtype_size(aopt_sim::rt::dtype t) {
  using aopt_sim::rt::dtype;
  switch (t) {
    case dtype::f32:
    case dtype::i32:
    case dtype::u32:
      return 4;
    case dtype::f16:
    case dtype::bf16:
    case dtype::i16:
    case dtype::u16:
      return 2;
    case dtype::i8:
    case dtype::u8:
      return 1;
    case dtype::i64:
    case dtype::u64:
      return 8;
    case dtype::other:
      break;
  }
  return 0;
}

const char* event_name(AscendC::HardEvent e) {
  static const char* const names[] = {
      "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1",   "MTE2_V",    "V_MTE2",    "MTE3_V",
      "V_MTE3",    "M_V",       "V_M",    "V_V",      "MTE3_MTE1", "MTE1_MTE3", "MTE1_V",
      "MTE2_M",    "M_MTE2",    "V_MTE1", "M_FIX",    "FIX_M",     "MTE3_MTE2", "MTE2_MTE3",
      "S_V",       "V_S",       "S_MTE2", "MTE2_S",   "S_MTE3",    "MTE3_S",    "MTE2_FIX",
      "FIX_MTE2",  "FIX_S",     "M_S",    "FIX_MTE3", "MTE1_FIX",  "FIX_MTE1",  "FIX_FIX"};
  const auto i = static_cast<size_t>(e);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

void ub_range_failure(const aopt_sim::rt::local_ref& t, uint64_t addr, uint64_t bytes,
                      const char* api, aopt_sim::rt::call_site site, const std::string& what) {
  if (t.buf_end == 0) {
    fail(
        "ub_out_of_bounds",
        cat(where(api, site), ": ", what, " UB [", addr, ", ", addr + bytes,
            ") through a LocalTensor that has no buffer (default-constructed, or not obtained from "
            "AllocTensor/DeQue/TBuf::Get)"));
  }
  fail("ub_out_of_bounds", cat(where(api, site), ": ", what, " UB [", addr, ", ", addr + bytes,
                               "), outside the tensor's buffer UB [", t.buf_begin, ", ", t.buf_end,
                               ") (", t.buf_end - t.buf_begin, " bytes)"));
}

void ub_read_past_buffer(state& s, const aopt_sim::rt::local_ref& t, uint64_t addr, uint64_t bytes,
                         const char* api, aopt_sim::rt::call_site site, const std::string& what) {
  if (t.buf_end == 0 || addr + bytes > s.ub_bytes)
    ub_range_failure(t, addr, bytes, api, site, what);
  warn(s, cat(where(api, site), ": ", what, " UB [", addr, ", ", addr + bytes,
              "), past the tensor's buffer UB [", t.buf_begin, ", ", t.buf_end,
              "): the bytes beyond are not the tensor's (harmless only if those lanes are "
              "discarded)"));
}

void check_ub_aligned(const aopt_sim::rt::local_ref& t, const char* api,
                      aopt_sim::rt::call_site site, const char* operand) {
  if (t.addr % ub_block == 0) return;
  fail("misaligned", cat(where(api, site), ": ", operand, " starts at UB address ", t.addr,
                         ", which is not 32-byte aligned (offset ", t.addr - t.buf_begin,
                         " bytes into its buffer); UB operands must start on a 32-byte block"));
}

namespace {

// The region `p` is in or after (the closest one below it), else the first region.
const gm_region* nearest_region(const state& s, const uint8_t* p) {
  const gm_region* best = nullptr;
  for (const gm_region& r : s.launch.gm) {
    if (r.base == nullptr) continue;
    if (r.base <= p && (best == nullptr || r.base > best->base)) best = &r;
  }
  if (best != nullptr) return best;
  for (const gm_region& r : s.launch.gm)
    if (r.base != nullptr && (best == nullptr || r.base < best->base)) best = &r;
  return best;
}

// The place of a GM access among all of the launch's (trace.hpp gm_write, gm_read).
uint64_t next_gm_seq(state& s) {
  return s.launch.gm_write_seq != nullptr ? s.launch.gm_write_seq->fetch_add(1) : s.own_write_seq++;
}

}  // namespace

std::string describe_gm(const state& s, const uint8_t* p) {
  if (p == nullptr) return "a null GM address";
  const gm_region* r = nearest_region(s, p);
  if (r == nullptr) return "a GM address (the launch has no GM tensors)";
  if (p >= r->base) return cat("'", r->name, "' + ", static_cast<uint64_t>(p - r->base));
  return cat("'", r->name, "' - ", static_cast<uint64_t>(r->base - p));
}

void check_gm_range(state& s, const uint8_t* p, uint64_t bytes, const char* api,
                    aopt_sim::rt::call_site site, const char* what, bool write) {
  const std::vector<gm_region>& regions = s.launch.gm;
  // How far past the region's end [p, p + bytes) reaches (0: inside the tensor), or none.
  auto overrun = [&](const gm_region& r) -> std::optional<uint64_t> {
    if (r.base == nullptr || p < r.base || p + bytes < p) return std::nullopt;
    const auto offset = static_cast<uint64_t>(p - r.base);
    const uint64_t end = offset + bytes;
    // A write may reach into the tensor's own allocation padding (a block-granular copy of a
    // tail, as real kernels make); a read also into the over-read zone after it.
    const uint64_t limit = r.bytes + r.padding + (write ? 0 : r.over_read);
    // An access must start inside the tensor (an empty one may sit at its end).
    if (offset > r.bytes || (offset == r.bytes && bytes != 0) || end > limit) return std::nullopt;
    return end > r.bytes ? end - r.bytes : 0;
  };
  auto accept = [&](size_t i, uint64_t past) {
    s.last_region = i;
    const gm_region& r = regions[i];
    if (write && past != 0) {
      warn(s, cat(where(api, site), " writes ", past, " bytes past the end of '", r.name, "' (",
                  r.bytes, " bytes), into its ", r.padding,
                  " bytes of CANN's allocation padding: harmless when the tensor is an allocation "
                  "of its own, but it overwrites the neighbouring elements when the tensor is a "
                  "view of a larger one"));
      return;
    }
    if (past <= r.padding) return;
    warn(s, cat(where(api, site), " reads ", past, " bytes past the end of '", r.name, "' (",
                r.bytes, " bytes), beyond the ", r.padding,
                " bytes of CANN's allocation padding: on the hardware they come from whatever "
                "allocation follows; the outputs did not depend on them here"));
  };
  if (s.last_region < regions.size()) {
    if (auto past = overrun(regions[s.last_region])) return accept(s.last_region, *past);
  }
  for (size_t i = 0; i < regions.size(); ++i) {
    if (auto past = overrun(regions[i])) return accept(i, *past);
  }
  const gm_region* r = nearest_region(s, p);
  std::string context;
  if (r != nullptr) {
    const bool runs_past = p >= r->base && p < r->base + r->bytes;
    context =
        cat(" ('", r->name, "' holds ", r->bytes, " bytes",
            runs_past && write ? cat(": a write must stay inside the tensor and its ", r->padding,
                                     " bytes of allocation padding)")
            : runs_past        ? cat(": the access runs past its end and its ", r->padding,
                                     " bytes of allocation padding by more than ", r->over_read, " bytes)")
                               : ")");
  }
  fail("gm_out_of_bounds",
       cat(where(api, site), ": ", what, " ", bytes, " bytes of GM at ", describe_gm(s, p),
           ", outside every GM tensor the kernel was given", context));
}

void record_gm_read(state& s, const uint8_t* p, uint64_t stride, uint32_t burst_bytes,
                    uint32_t bursts, uint32_t by) {
  if (!s.rec.on()) return;
  const gm_window open(s.launch.guard);  // the digest reads the bytes
  flush_scalar_write(s);                 // a store handed out earlier happened before this read
  const gm_region& r = s.launch.gm[s.last_region];
  const size_t region = s.last_region;
  s.rec.gm_read_from(static_cast<uint32_t>(region), static_cast<uint64_t>(p - r.base), p, stride,
                     burst_bytes, bursts, next_gm_seq(s), by);
}

void record_gm_write(state& s, const uint8_t* p, uint64_t stride, uint32_t burst_bytes,
                     uint32_t bursts, uint32_t by) {
  const gm_window open(s.launch.guard);  // the snapshot reads the bytes
  flush_scalar_write(s);                 // a store handed out earlier happened before this write
  const gm_region& r = s.launch.gm[s.last_region];
  gm_write w;
  w.region = static_cast<uint32_t>(s.last_region);
  w.offset = static_cast<uint64_t>(p - r.base);
  w.stride = stride;
  w.burst_bytes = burst_bytes;
  w.bursts = bursts;
  w.seq = next_gm_seq(s);
  w.instruction = by;
  byte_arena& snapshots =
      s.launch.write_snapshots != nullptr ? *s.launch.write_snapshots : s.own_write_snapshots;
  w.data = snapshots.copy_runs(p, stride, burst_bytes, bursts);
  s.rec.gm_written(std::move(w));
}

void check_atomic_destination(state& s, aopt_sim::rt::dtype type, uint32_t elem_size,
                              uint32_t run_bytes, const char* api, aopt_sim::rt::call_site site) {
  if (s.launch.gm[s.last_region].starts_poisoned) {
    warn(s, cat(aopt::sim::accumulation_into_uninitialised_output, "'",
                s.launch.gm[s.last_region].name, "': ", where(api, site),
                " adds into it, but op.json gives it no initial contents, so it starts as whatever "
                "its allocation held (poison here); if the framework zero-fills it, declare "
                "\"init\": \"zeros\""));
  }
  if (type == aopt_sim::rt::dtype::other || run_bytes % elem_size != 0) {
    fail("bad_argument", cat(where(api, site), ": atomic accumulation of ", dtype_name(type),
                             " data of ", run_bytes, " bytes per burst"));
  }
}

void flush_scalar_write(state& s) {
  const state::scalar_store st = std::exchange(s.pending_scalar_write, {});
  if (st.at == nullptr) return;
  const size_t keep = s.last_region;
  s.last_region = st.region;
  record_gm_write(s, st.at, 0, st.bytes, 1, st.by);
  s.last_region = keep;
}

void warn(state& s, const std::string& message) {
  constexpr size_t max_warnings = 20;
  if (s.warnings.size() >= max_warnings) return;
  if (std::find(s.warnings.begin(), s.warnings.end(), message) != s.warnings.end()) return;
  s.warnings.push_back(message);
}

}  // namespace aopt::sim::kernel
