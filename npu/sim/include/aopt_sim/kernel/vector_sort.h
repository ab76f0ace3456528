// aopt simulator, kernel side: Sort32. Per repeat, 32 scores (src0) and their uint32 indexes
// (src1) sorted by score, largest first (equal scores keep their order), written to dst as
// 8-byte (score, index) pairs: the score in the low bytes (a half score in the low 2 of 4,
// the other 2 zero), the index in the high 4. Repeats advance 32 elements in the sources and
// 256 bytes in dst; each repeat is sorted on its own.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

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

}  // namespace AscendC
