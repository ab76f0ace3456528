// aopt simulator, kernel side: Sort32. Per repeat, 32 scores (src0) and their uint32 indexes
// (src1) sorted by score, largest first (equal scores keep their order), written to dst as
// 8-byte (score, index) pairs: the score in the low bytes (a half score in the low 2 of 4,
// the other 2 zero), the index in the high 4. Repeats advance 32 elements in the sources and
// 256 bytes in dst; each repeat is sorted on its own.
//
// MrgSort merges 2 to 4 lists of such pairs, each already sorted largest score first (Sort32's
// output, or an earlier MrgSort's), into one list in dst, largest first; of equal scores the
// one from the earlier list comes first. validBit names the lists (0b11, 0b111, 0b1111),
// elementLengths[i] their pair counts; with ifExhaustedSuspension the merge stops as soon as
// one list runs out. Only repeatTimes 1 is provided.
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

template <typename T>
void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
            const LocalTensor<uint32_t>& src1, const int32_t repeatTime,
            detail::site_t site = detail::site_t()) {
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
  for (uint64_t r = 0; r < repeats; ++r) {
    std::array<uint32_t, 32> order;
    std::array<float, 32> score;
    for (uint32_t i = 0; i < 32; ++i) {
      order[i] = i;
      score[i] = static_cast<float>(detail::load<T>(p[1], r * 32 + i));
    }
    std::stable_sort(order.begin(), order.end(),
                     [&score](uint32_t a, uint32_t b) { return score[a] > score[b]; });
    for (uint32_t k = 0; k < 32; ++k) {
      uint8_t pair[8] = {};
      const T s = static_cast<T>(score[order[k]]);
      std::memcpy(pair, &s, sizeof(T));
      std::memcpy(pair + 4, p[2] + (r * 32 + order[k]) * 4, 4);
      std::memcpy(p[0] + (r * 32 + k) * 8, pair, 8);
    }
  }
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
             const MrgSort4Info& params, detail::site_t site = detail::site_t()) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, half>,
                "MrgSort: half or float scores");
  const uint32_t lists = params.validBit == 0b11     ? 2
                         : params.validBit == 0b111  ? 3
                         : params.validBit == 0b1111 ? 4
                                                     : 0;
  if (lists == 0)
    aopt_sim::rt::kernel_assert_failed("MrgSort: validBit is 0b11, 0b111 or 0b1111 (2 to 4 lists)",
                                       "MrgSort", site.line);
  if (params.repeatTimes != 1)
    aopt_sim::rt::kernel_assert_failed(
        "MrgSort: repeatTimes is 1 (the only form the simulator provides)", "MrgSort", site.line);
  constexpr uint64_t per_pair = 8 / sizeof(T);  // elements of T in one 8-byte pair
  const uint16_t* len = params.elementLengths;
  uint64_t total = 0;
  for (uint32_t i = 0; i < lists; ++i) total += len[i];
  uint8_t* p[5];
  const auto src = [&](const LocalTensor<T>& t, uint32_t i, const char* name) {
    return detail::reads(t, len[i] * per_pair, name);
  };
  const detail::composite_operand out = detail::writes(dst, total * per_pair);
  if (lists == 2)
    detail::composite_call(aopt_sim::rt::vec_class::compare_select,
                           {out, src(srcList.src1, 0, "src1"), src(srcList.src2, 1, "src2")}, p,
                           total * 8 * 2, "MrgSort", site);
  else if (lists == 3)
    detail::composite_call(aopt_sim::rt::vec_class::compare_select,
                           {out, src(srcList.src1, 0, "src1"), src(srcList.src2, 1, "src2"),
                            src(srcList.src3, 2, "src3")},
                           p, total * 8 * 2, "MrgSort", site);
  else
    detail::composite_call(aopt_sim::rt::vec_class::compare_select,
                           {out, src(srcList.src1, 0, "src1"), src(srcList.src2, 1, "src2"),
                            src(srcList.src3, 2, "src3"), src(srcList.src4, 3, "src4")},
                           p, total * 8 * 2, "MrgSort", site);
  // Merge into a copy first: dst may overlap a source only where the hardware allows it, and a
  // copy keeps the result independent of the order of reads and writes.
  std::array<uint32_t, 4> next{};
  uint64_t written = 0;
  uint8_t merged_pair[8];
  std::vector<uint8_t> merged(total * 8);
  while (written < total) {
    int32_t best = -1;
    float best_score = 0;
    bool exhausted = false;
    for (uint32_t i = 0; i < lists; ++i) {
      if (next[i] >= len[i]) {
        exhausted = true;
        continue;
      }
      const float sc = static_cast<float>(detail::load<T>(p[i + 1], next[i] * per_pair));
      if (best < 0 || sc > best_score) {
        best = static_cast<int32_t>(i);
        best_score = sc;
      }
    }
    if (best < 0 || (exhausted && params.ifExhaustedSuspension)) break;
    std::memcpy(merged_pair, p[best + 1] + next[best] * 8, 8);
    std::memcpy(merged.data() + written * 8, merged_pair, 8);
    ++next[static_cast<size_t>(best)];
    ++written;
  }
  std::memcpy(p[0], merged.data(), written * 8);
}

}  // namespace AscendC
