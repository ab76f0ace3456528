#include <algorithm>

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

void check_ub_range(const aopt_sim::rt::local_ref& t, uint64_t addr, uint64_t bytes,
                    const char* api, aopt_sim::rt::call_site site, const std::string& what) {
  if (addr >= t.buf_begin && addr + bytes <= t.buf_end) return;
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

}  // namespace

std::string describe_gm(const state& s, const uint8_t* p) {
  if (p == nullptr) return "a null GM address";
  const gm_region* r = nearest_region(s, p);
  if (r == nullptr) return "a GM address (the launch has no GM tensors)";
  if (p >= r->base) return cat("'", r->name, "' + ", static_cast<uint64_t>(p - r->base));
  return cat("'", r->name, "' - ", static_cast<uint64_t>(r->base - p));
}

void check_gm_range(state& s, const uint8_t* p, uint64_t bytes, const char* api,
                    aopt_sim::rt::call_site site, const char* what) {
  const std::vector<gm_region>& regions = s.launch.gm;
  auto inside = [&](const gm_region& r) {
    return r.base != nullptr && p >= r.base && p + bytes <= r.base + r.bytes && p + bytes >= p;
  };
  if (s.last_region < regions.size() && inside(regions[s.last_region])) return;
  for (size_t i = 0; i < regions.size(); ++i) {
    if (inside(regions[i])) {
      s.last_region = i;
      return;
    }
  }
  const gm_region* r = nearest_region(s, p);
  std::string context;
  if (r != nullptr)
    context = cat(" ('", r->name, "' holds ", r->bytes, " bytes",
                  p >= r->base && p < r->base + r->bytes ? ": the access runs past its end)" : ")");
  fail("gm_out_of_bounds",
       cat(where(api, site), ": ", what, " ", bytes, " bytes of GM at ", describe_gm(s, p),
           ", outside every GM tensor the kernel was given", context));
}

}  // namespace aopt::sim::kernel
