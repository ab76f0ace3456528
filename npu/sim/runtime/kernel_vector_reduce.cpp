// Reductions of the kernel shim: ReduceSum/Max/Min over a whole tensor, WholeReduce* (one result
// per repeat) and BlockReduce* (one per 32-byte block). Sums add pairwise (a binary tree within
// a repeat, rounding to the element type at every step, as the vector unit does); the count
// form of ReduceSum accumulates the repeat sums in order, the mask form as a tree. Max/Min report
// the first lane holding the extreme.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernel_numeric.hpp"
#include "kernel_vector.hpp"

namespace aopt::sim::kernel {
namespace {

using aopt_sim::rt::dtype;
using aopt_sim::rt::vop;

template <typename S>
using calc_t = typename elem<S>::calc;

template <typename S>
calc_t<S> rounded(calc_t<S> v) {
  return elem<S>::load(elem<S>::store(v));
}

// Pairwise sum of `v` (size a power of two or not), rounding each addition to S.
template <typename S>
calc_t<S> tree_sum(std::vector<calc_t<S>>& v) {
  if (v.empty()) return 0;
  size_t n = v.size();
  while (n > 1) {
    const size_t half = n / 2;
    for (size_t i = 0; i < half; ++i) v[i] = rounded<S>(v[2 * i] + v[2 * i + 1]);
    if (n % 2 != 0) {
      v[half] = v[n - 1];
      n = half + 1;
    } else {
      n = half;
    }
  }
  return v[0];
}

template <typename S>
struct extreme {
  bool any = false;
  calc_t<S> value{};
  uint64_t index = 0;

  void offer(vop op, calc_t<S> v, uint64_t i) {
    const bool better = !any || (op == vop::max ? v > value : v < value);
    if (better) {
      any = true;
      value = v;
      index = i;
    }
  }
};

template <typename S>
S load_at(const uint8_t* p) {
  S v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename S>
void store_at(uint8_t* p, calc_t<S> v) {
  const S s = elem<S>::store(v);
  std::memcpy(p, &s, sizeof s);
}

// An index stored in an element slot of sizeof(S) bytes (read back by reinterpreting the
// element as an unsigned integer of its width).
template <typename S>
void store_index(uint8_t* p, uint64_t index, uint32_t bytes = sizeof(S)) {
  std::memcpy(p, &index, bytes);  // little-endian: the low bytes
}

struct reduce_call {
  vop op;
  const aopt_sim::rt::local_ref* dst;
  const aopt_sim::rt::local_ref* src;
  const aopt_sim::rt::vec_shape* shape;
  lane_plan plan;
  vec_operand src_op;
  uint8_t* ub;
};

template <typename S>
void reduce_all(const reduce_call& c, bool cal_index) {
  const lane_plan& p = c.plan;
  const uint64_t repeat_elems = p.count_form ? p.lanes : uint64_t{c.shape->rep[1]} * 32 / sizeof(S);
  uint8_t* out = c.ub + c.dst->addr;
  if (c.op == vop::sum) {
    std::vector<calc_t<S>> sums;
    std::vector<calc_t<S>> lanes;
    for (uint32_t r = 0; r < p.repeats; ++r) {
      lanes.assign(p.lanes, calc_t<S>{});
      if (p.count_form) {
        const uint64_t first = uint64_t{r} * p.lanes;
        const auto n = static_cast<uint32_t>(std::min<uint64_t>(p.lanes, p.total - first));
        const uint8_t* base = c.ub + c.src->addr + first * sizeof(S);
        for (uint32_t lane = 0; lane < n; ++lane)
          lanes[lane] = elem<S>::load(load_at<S>(base + lane * sizeof(S)));
      } else {
        for (uint32_t lane = 0; lane < p.lanes; ++lane) {
          if (!p.lane_active(r, lane)) continue;
          lanes[lane] = elem<S>::load(
              load_at<S>(c.ub + c.src->addr + lane_offset(c.src_op, *c.shape, p, r, lane)));
        }
      }
      sums.push_back(tree_sum<S>(lanes));
    }
    calc_t<S> total{};
    if (p.count_form) {
      for (const calc_t<S>& v : sums) total = rounded<S>(total + v);
    } else {
      total = tree_sum<S>(sums);
    }
    store_at<S>(out, total);
    return;
  }
  extreme<S> best;
  for_each_active_lane(p, [&](uint32_t r, uint32_t lane) {
    const auto v =
        elem<S>::load(load_at<S>(c.ub + c.src->addr + lane_offset(c.src_op, *c.shape, p, r, lane)));
    best.offer(c.op, v, uint64_t{r} * repeat_elems + lane);
  });
  store_at<S>(out, best.value);
  if (cal_index) store_index<S>(out + sizeof(S), best.index);
}

template <typename S>
void whole_reduce(const reduce_call& c, AscendC::ReduceOrder order, uint32_t unit,
                  uint32_t stride) {
  const lane_plan& p = c.plan;
  std::vector<calc_t<S>> lanes;
  for (uint32_t r = 0; r < p.repeats; ++r) {
    uint8_t* out = c.ub + c.dst->addr + uint64_t{r} * stride * unit;
    if (c.op == vop::sum) {
      lanes.assign(p.lanes, calc_t<S>{});
      bool any = false;
      for (uint32_t lane = 0; lane < p.lanes; ++lane) {
        if (!p.lane_active(r, lane)) continue;
        any = true;
        lanes[lane] = elem<S>::load(
            load_at<S>(c.ub + c.src->addr + lane_offset(c.src_op, *c.shape, p, r, lane)));
      }
      if (any) store_at<S>(out, tree_sum<S>(lanes));
      continue;
    }
    extreme<S> best;
    for (uint32_t lane = 0; lane < p.lanes; ++lane) {
      if (!p.lane_active(r, lane)) continue;
      best.offer(c.op,
                 elem<S>::load(
                     load_at<S>(c.ub + c.src->addr + lane_offset(c.src_op, *c.shape, p, r, lane))),
                 lane);
    }
    if (!best.any) continue;
    switch (order) {
      case AscendC::ReduceOrder::ORDER_VALUE_INDEX:
        store_at<S>(out, best.value);
        store_index<S>(out + sizeof(S), best.index);
        break;
      case AscendC::ReduceOrder::ORDER_INDEX_VALUE:
        store_index<S>(out, best.index);
        store_at<S>(out + sizeof(S), best.value);
        break;
      case AscendC::ReduceOrder::ORDER_ONLY_VALUE:
        store_at<S>(out, best.value);
        break;
      case AscendC::ReduceOrder::ORDER_ONLY_INDEX:
        store_index<S>(out, best.index, 4);
        break;
    }
  }
}

template <typename S>
void block_reduce(const reduce_call& c, uint32_t stride) {
  const lane_plan& p = c.plan;
  const uint32_t per_block = 32 / sizeof(S);
  std::vector<calc_t<S>> lanes;
  for (uint32_t r = 0; r < p.repeats; ++r) {
    for (uint32_t b = 0; b < 8; ++b) {
      uint8_t* out = c.ub + c.dst->addr + (uint64_t{r} * stride * 8 + b) * sizeof(S);
      lanes.assign(per_block, calc_t<S>{});
      extreme<S> best;
      bool any = false;
      for (uint32_t k = 0; k < per_block; ++k) {
        const uint32_t lane = b * per_block + k;
        if (!p.lane_active(r, lane)) continue;
        any = true;
        const auto v = elem<S>::load(
            load_at<S>(c.ub + c.src->addr + lane_offset(c.src_op, *c.shape, p, r, lane)));
        lanes[k] = v;
        best.offer(c.op, v, k);
      }
      if (!any) continue;
      store_at<S>(out, c.op == vop::sum ? tree_sum<S>(lanes) : best.value);
    }
  }
}

template <typename F>
void by_type(dtype t, F&& f) {
  switch (t) {
    case dtype::f32:
      return f(static_cast<float*>(nullptr));
    case dtype::f16:
      return f(static_cast<f16s*>(nullptr));
    case dtype::bf16:
      return f(static_cast<bf16s*>(nullptr));
    case dtype::i8:
      return f(static_cast<int8_t*>(nullptr));
    case dtype::u8:
      return f(static_cast<uint8_t*>(nullptr));
    case dtype::i16:
      return f(static_cast<int16_t*>(nullptr));
    case dtype::u16:
      return f(static_cast<uint16_t*>(nullptr));
    case dtype::i32:
      return f(static_cast<int32_t*>(nullptr));
    case dtype::u32:
      return f(static_cast<uint32_t*>(nullptr));
    default:
      return;
  }
}

void check_type(dtype t, const char* api, aopt_sim::rt::call_site site) {
  if (dtype_size(t) == 0 || t == dtype::i64 || t == dtype::u64)
    fail("bad_argument", cat(where(api, site), ": not supported for ", dtype_name(t), " tensors"));
}

reduce_call prepare(state& st, vop op, dtype t, const aopt_sim::rt::local_ref& dst,
                    const aopt_sim::rt::local_ref& src, const aopt_sim::rt::vec_shape& s,
                    const char* api, aopt_sim::rt::call_site site) {
  check_type(t, api, site);
  reduce_call c{
      op,         &dst, &src, &s, resolve_plan(st, s, dtype_size(t), api, site), vec_operand{},
      st.ub.get()};
  c.src_op.ref = &src;
  c.src_op.size = dtype_size(t);
  c.src_op.slot = 1;
  c.src_op.read = true;
  c.src_op.name = "src";
  return c;
}

// Checks src, and dst over [dst.addr, dst.addr + dst_bytes); fills hulls[0] (src) and hulls[1].
void check_reduce(const reduce_call& c, uint64_t dst_bytes, byte_hull* hulls, vec_operand* ops,
                  const char* api, aopt_sim::rt::call_site site) {
  ops[0] = c.src_op;
  check_operands(ops, 1, *c.shape, c.plan, hulls, api, site);
  hulls[1] = byte_hull{c.dst->addr, c.dst->addr + dst_bytes};
  check_ub_range(*c.dst, hulls[1].begin, dst_bytes, api, site, "dst writes");
  ops[1].ref = c.dst;
  ops[1].write = true;
  ops[1].name = "dst";
}

}  // namespace
}  // namespace aopt::sim::kernel

namespace aopt_sim::rt {

using namespace aopt::sim::kernel;  // NOLINT(google-build-using-namespace): implementation file
using aopt::sim::op_class;

void vec_reduce(vop op, dtype t, const local_ref& dst, const local_ref& src, const local_ref& tmp,
                bool cal_index, const vec_shape& s, const char* api, call_site site) {
  state& st = current();
  const reduce_call c = prepare(st, op, t, dst, src, s, api, site);
  if (c.plan.empty()) return;
  const bool index = cal_index && op != vop::sum;
  const uint32_t size = dtype_size(t);
  vec_operand ops[2];
  byte_hull hulls[2];
  check_reduce(c, uint64_t{size} * (index ? 2 : 1), hulls, ops, api, site);
  by_type(t, [&](auto* tag) { reduce_all<std::remove_pointer_t<decltype(tag)>>(c, index); });
  // The scratch buffer receives the per-repeat partial results.
  byte_hull scratch;
  if (tmp.buf_end > tmp.addr) {
    const uint64_t need = align_up(c.plan.repeats * size, ub_block);
    scratch = byte_hull{tmp.addr, tmp.addr + std::min<uint64_t>(need, tmp.buf_end - tmp.addr)};
  }
  record_vector(st, op_class::vec_reduce, api, site, c.plan, size, ops, hulls, 2, &scratch);
}

void vec_whole_reduce(vop op, dtype t, const local_ref& dst, const local_ref& src,
                      AscendC::ReduceOrder order, uint32_t dst_rep_stride, const vec_shape& s,
                      const char* api, call_site site) {
  state& st = current();
  const reduce_call c = prepare(st, op, t, dst, src, s, api, site);
  if (c.plan.empty()) return;
  const uint32_t size = dtype_size(t);
  uint32_t unit = size;
  if (op != vop::sum && (order == AscendC::ReduceOrder::ORDER_VALUE_INDEX ||
                         order == AscendC::ReduceOrder::ORDER_INDEX_VALUE))
    unit = 2 * size;
  if (op != vop::sum && order == AscendC::ReduceOrder::ORDER_ONLY_INDEX) unit = 4;
  vec_operand ops[2];
  byte_hull hulls[2];
  check_reduce(c, uint64_t{c.plan.repeats - 1} * dst_rep_stride * unit + unit, hulls, ops, api,
               site);
  by_type(t, [&](auto* tag) {
    whole_reduce<std::remove_pointer_t<decltype(tag)>>(c, order, unit, dst_rep_stride);
  });
  record_vector(st, op_class::vec_reduce, api, site, c.plan, size, ops, hulls, 2);
}

void vec_block_reduce(vop op, dtype t, const local_ref& dst, const local_ref& src,
                      uint32_t dst_rep_stride, const vec_shape& s, const char* api,
                      call_site site) {
  state& st = current();
  const reduce_call c = prepare(st, op, t, dst, src, s, api, site);
  if (c.plan.empty()) return;
  const uint32_t size = dtype_size(t);
  vec_operand ops[2];
  byte_hull hulls[2];
  check_reduce(c, (uint64_t{c.plan.repeats - 1} * dst_rep_stride * 8 + 8) * size, hulls, ops, api,
               site);
  by_type(
      t, [&](auto* tag) { block_reduce<std::remove_pointer_t<decltype(tag)>>(c, dst_rep_stride); });
  record_vector(st, op_class::vec_reduce, api, site, c.plan, size, ops, hulls, 2);
}

}  // namespace aopt_sim::rt
