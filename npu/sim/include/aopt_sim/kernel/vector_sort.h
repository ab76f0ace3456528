// aopt simulator, kernel side: Sort32, MrgSort, GetMrgSortResult and the high-level Sort.
//
// Sort32: per repeat, 32 scores (src0) and their uint32 indexes
// (src1) sorted by score, largest first (equal scores keep their order), written to dst as
// 8-byte (score, index) pairs: the score in the low bytes (a half score in the low 2 of 4,
// the other 2 zero), the index in the high 4. Repeats advance 32 elements in the sources and
// 256 bytes in dst; each repeat is sorted on its own.
//
// MrgSort merges 2 to 4 lists of such pairs, each already sorted largest score first (Sort32's
// output, or an earlier MrgSort's), into one list in dst, largest first; of equal scores the
// one from the earlier list comes first. validBit names the lists (0b11, 0b111, 0b1111),
// elementLengths[i] their pair counts; with ifExhaustedSuspension the merge stops as soon as
// one list runs out, and GetMrgSortResult then says how many pairs each list gave. repeatTimes
// above 1 (documented only for four equal lists stored one after another, without suspension)
// merges the next four lists into the next output span per repeat.
//
// Sort (the high-level API, A2/A3 layout): Sort32's pairs, per repeat of 32 or, with
// isFullSort, over all the scores at once; Concat prepares its scores (a copy on A2/A3).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "aopt_sim/kernel/composite.h"
#include "aopt_sim/kernel/vector_ops.h"

namespace AscendC {

namespace detail {

// Merges `lists` lists of 8-byte (score, index) pairs, each sorted largest score first, into
// `out` (largest first; of equal scores the earlier list's pair first). With `suspend` the merge
// stops when a list runs out. consumed[i] receives the pairs taken from list i; returns the
// pairs written.
template <typename T>
uint64_t merge_sorted_lists(const uint8_t* const* src, const uint16_t* len, uint32_t lists,
                            bool suspend, uint8_t* out, uint16_t* consumed) {
  constexpr uint64_t per_pair = 8 / sizeof(T);
  uint64_t total = 0;
  for (uint32_t i = 0; i < lists; ++i) total += len[i];
  // Merge into a copy first: dst may overlap a source, and a copy keeps the result independent
  // of the order of reads and writes.
  std::vector<uint8_t> merged(total * 8);
  std::array<uint32_t, 4> next{};
  uint64_t written = 0;
  while (written < total) {
    int32_t best = -1;
    float best_score = 0;
    bool exhausted = false;
    for (uint32_t i = 0; i < lists; ++i) {
      if (next[i] >= len[i]) {
        exhausted = true;
        continue;
      }
      const float sc = static_cast<float>(load<T>(src[i], next[i] * per_pair));
      if (best < 0 || sc > best_score) {
        best = static_cast<int32_t>(i);
        best_score = sc;
      }
    }
    if (best < 0 || (exhausted && suspend)) break;
    std::memcpy(merged.data() + written * 8, src[best] + next[best] * 8, 8);
    ++next[static_cast<size_t>(best)];
    ++written;
  }
  std::memcpy(out, merged.data(), written * 8);
  for (uint32_t i = 0; i < 4; ++i) consumed[i] = static_cast<uint16_t>(i < lists ? next[i] : 0);
  return written;
}

// Sorts n scores with their uint32 indexes into 8-byte (score, index) pairs, largest first,
// equal scores in input order (Sort32 per group of 32, the full Sort over all of them).
template <typename T>
void sort_pairs(const uint8_t* scores, const uint8_t* indexes, uint64_t n, uint8_t* out) {
  std::vector<uint32_t> order(n);
  std::vector<float> score(n);
  for (uint32_t i = 0; i < n; ++i) {
    order[i] = i;
    score[i] = static_cast<float>(load<T>(scores, i));
  }
  std::stable_sort(order.begin(), order.end(),
                   [&score](uint32_t a, uint32_t b) { return score[a] > score[b]; });
  for (uint64_t k = 0; k < n; ++k) {
    uint8_t pair[8] = {};
    const T sc = static_cast<T>(score[order[k]]);
    std::memcpy(pair, &sc, sizeof(T));
    std::memcpy(pair + 4, indexes + uint64_t{order[k]} * 4, 4);
    std::memcpy(out + k * 8, pair, 8);
  }
}

}  // namespace detail

template <typename T>
void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
            const LocalTensor<uint32_t>& src1, const int32_t repeatTime,
            detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                "Sort32: half or float scores");
  if (repeatTime <= 0) return;
  const auto repeats = static_cast<uint64_t>(repeatTime);
  uint8_t* p[3];
  detail::composite_call(
      aopt_sim::rt::vec_class::compare_select,
      {detail::writes(dst, repeats * 256 / sizeof(T)), detail::reads(src0, repeats * 32, "src0"),
       detail::reads(src1, repeats * 32, "src1")},
      p, repeats * 256 * 4, "Sort32", site);
  for (uint64_t r = 0; r < repeats; ++r)
    detail::sort_pairs<T>(p[1] + r * 32 * sizeof(T), p[2] + r * 32 * 4, 32, p[0] + r * 256);
}

template <typename T>
struct MrgSortSrcList {
  MrgSortSrcList() = default;
  MrgSortSrcList(const LocalTensor<T>& s1, const LocalTensor<T>& s2,
                 const LocalTensor<T>& s3 = LocalTensor<T>(),
                 const LocalTensor<T>& s4 = LocalTensor<T>())
      : src1(s1), src2(s2), src3(s3), src4(s4) {}
  LocalTensor<T> src1, src2, src3, src4;
};

struct MrgSort4Info {
  MrgSort4Info() = default;
  MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn,
               const uint16_t validBitIn, const uint16_t repeatTimesIn)
      : ifExhaustedSuspension(ifExhaustedSuspensionIn),
        validBit(validBitIn),
        repeatTimes(repeatTimesIn) {
    for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
  }
  uint16_t elementLengths[4] = {0, 0, 0, 0};
  bool ifExhaustedSuspension = false;
  uint16_t validBit = 0;
  uint16_t repeatTimes = 1;
};

template <typename T>
void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& srcList,
             const MrgSort4Info& params, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                "MrgSort: half or float scores");
  const uint32_t lists = params.validBit == 0b11     ? 2
                         : params.validBit == 0b111  ? 3
                         : params.validBit == 0b1111 ? 4
                                                     : 0;
  if (lists == 0)
    aopt_sim::rt::kernel_assert_failed("MrgSort: validBit is 0b11, 0b111 or 0b1111 (2 to 4 lists)",
                                       "MrgSort", site.line);
  const uint16_t* len = params.elementLengths;
  const uint32_t repeats = params.repeatTimes;
  if (repeats < 1 || repeats > 255)
    aopt_sim::rt::kernel_assert_failed("MrgSort: repeatTimes is 1..255", "MrgSort", site.line);
  constexpr uint64_t per_pair = 8 / sizeof(T);  // elements of T in one 8-byte pair
  uint64_t total = 0;
  for (uint32_t i = 0; i < lists; ++i) total += len[i];
  const LocalTensor<T>* src[4] = {&srcList.src1, &srcList.src2, &srcList.src3, &srcList.src4};
  if (repeats > 1) {
    // Documented: repeatTimes takes effect only for four equal, contiguous lists without
    // ifExhaustedSuspension; each repeat merges the next four lists into the next output span.
    bool contiguous = lists == 4;
    for (uint32_t i = 1; i < lists; ++i) {
      contiguous = contiguous && len[i] == len[0] &&
                   src[i]->aopt_ref().addr == src[0]->aopt_ref().addr + i * uint32_t{len[0]} * 8;
    }
    if (!contiguous || params.ifExhaustedSuspension)
      aopt_sim::rt::kernel_assert_failed(
          "MrgSort: repeatTimes above 1 needs four lists (validBit 0b1111) of equal length stored "
          "one after another and ifExhaustedSuspension false",
          "MrgSort", site.line);
  }
  uint8_t* p[5];
  const auto in = [&](uint32_t i, const char* name) {
    return detail::reads(*src[i], len[i] * per_pair, name);
  };
  const detail::composite_operand out = detail::writes(dst, total * per_pair * repeats);
  const uint64_t work = total * 8 * 2 * repeats;
  if (repeats > 1)
    detail::composite_call(aopt_sim::rt::vec_class::compare_select,
                           {out, detail::reads(srcList.src1, total * per_pair * repeats, "src1")},
                           p, work, "MrgSort", site);
  else if (lists == 2)
    detail::composite_call(aopt_sim::rt::vec_class::compare_select,
                           {out, in(0, "src1"), in(1, "src2")}, p, work, "MrgSort", site);
  else if (lists == 3)
    detail::composite_call(aopt_sim::rt::vec_class::compare_select,
                           {out, in(0, "src1"), in(1, "src2"), in(2, "src3")}, p, work, "MrgSort",
                           site);
  else
    detail::composite_call(aopt_sim::rt::vec_class::compare_select,
                           {out, in(0, "src1"), in(1, "src2"), in(2, "src3"), in(3, "src4")}, p,
                           work, "MrgSort", site);
  uint16_t consumed[4] = {};
  for (uint32_t r = 0; r < repeats; ++r) {
    const uint8_t* from[4];
    for (uint32_t i = 0; i < lists; ++i) {
      from[i] = repeats > 1 ? p[1] + (r * total + i * uint64_t{len[0]}) * 8 : p[i + 1];
    }
    detail::merge_sorted_lists<T>(from, len, lists, params.ifExhaustedSuspension,
                                  p[0] + r * total * 8, consumed);
  }
  aopt_sim::rt::set_mrg_sort_result(consumed);
}

// The pairs the last MrgSort took from each list (meaningful with ifExhaustedSuspension).
inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                             uint16_t& mrgSortList4) {
  uint16_t c[4];
  aopt_sim::rt::mrg_sort_result(c);
  mrgSortList1 = c[0];
  mrgSortList2 = c[1];
  mrgSortList3 = c[2];
  mrgSortList4 = c[3];
}

// Concat, the preparation of the scores for Sort: on A2/A3, whose Sort reads the scores as they
// are, the repeatTime * 16 elements of src go one to one into concat (a copy). tmp is the
// documented scratch tensor: the simulator needs none and leaves it untouched. (The region
// proposal layout of Atlas inference cores is not provided.)
template <typename T>
void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp,
            const int32_t repeatTime, detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Concat: half or float");
  static_cast<void>(tmp);
  if (repeatTime < 0 || repeatTime > 255)
    aopt_sim::rt::kernel_assert_failed("Concat: repeatTime is 0..255", "Concat", site.line);
  const uint64_t n = uint64_t{16} * static_cast<uint64_t>(repeatTime);
  if (n == 0) return;
  uint8_t* p[2];
  detail::composite_call(aopt_sim::rt::vec_class::simple,
                         {detail::writes(concat, n, "concat"), detail::reads(src, n, "src")}, p,
                         n * sizeof(T), "Concat", site);
  std::memmove(p[0], p[1], n * sizeof(T));
}

// The high-level sort (A2/A3 layout: 8-byte (score, index) pairs). Without isFullSort each
// repeat of 32 is sorted on its own (as Sort32); with it all repeatTime * 32 scores are sorted
// together, largest first, equal scores in input order. tmp is the documented scratch tensor:
// the simulator needs none and leaves it untouched.
template <typename T, bool isFullSort>
void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat,
          const LocalTensor<uint32_t>& index, LocalTensor<T>& tmp, const int32_t repeatTime,
          detail::site_t site = detail::site_t(__builtin_LINE())) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>, "Sort: half or float scores");
  (void)tmp;
  if (repeatTime < 0 || repeatTime > 255)
    aopt_sim::rt::kernel_assert_failed("Sort: repeatTime is 0..255", "Sort", site.line);
  if (repeatTime == 0) return;
  const auto repeats = static_cast<uint64_t>(repeatTime);
  const uint64_t n = repeats * 32;
  // Work: the 32-element sorts, then (full sort) merge passes of four lists each.
  uint64_t work = n * 8 * 4;
  if (isFullSort)
    for (uint64_t run = 32; run < n; run *= 4) work += n * 8 * 2;
  uint8_t* p[3];
  detail::composite_call(aopt_sim::rt::vec_class::compare_select,
                         {detail::writes(dst, n * 8 / sizeof(T)),
                          detail::reads(concat, n, "concat"), detail::reads(index, n, "index")},
                         p, work, "Sort", site);
  if (isFullSort) {
    detail::sort_pairs<T>(p[1], p[2], n, p[0]);
    return;
  }
  for (uint64_t r = 0; r < repeats; ++r)
    detail::sort_pairs<T>(p[1] + r * 32 * sizeof(T), p[2] + r * 32 * 4, 32, p[0] + r * 256);
}

}  // namespace AscendC
