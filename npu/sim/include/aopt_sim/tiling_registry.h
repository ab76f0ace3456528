// aopt simulator: which tiling class a kernel's GET_TILING_DATA reads (tiling_data.h), from the
// registrations of register/tilingdata_base.h. A header may register several classes (one per
// operator, or one class for two operators, as CANN allows); the kernel reads the class
// registered for its own op type, matched ignoring case and underscores ("BEVPoolV3" is the
// operator bev_pool_v3), else the first class the translation unit registered.
#pragma once

#include <type_traits>

namespace aopt_sim {

// An op type as a key that ignores case and underscores (FNV-1a over the rest).
constexpr unsigned long long op_type_key(const char* s) {
  unsigned long long h = 1469598103934665603ull;
  for (; *s != '\0'; ++s) {
    char c = *s;
    if (c == '_') continue;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  return h;
}

template <class T, class = void>
struct is_complete : std::false_type {};
template <class T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

}  // namespace aopt_sim

namespace optiling {
// Complete (with `type`) for each op type a REGISTER_TILING_DATA_CLASS names.
template <unsigned long long OpTypeKey>
struct aopt_tiling_for_op_type;
// Complete for each registration, numbered by __COUNTER__ in the order written.
template <int N>
struct aopt_tiling_registration;
}  // namespace optiling

namespace aopt_sim {

constexpr int max_tiling_registrations = 256;

// `Key` only makes the search depend on the use, so that it runs where GET_TILING_DATA is
// written, after the registrations.
template <int N, unsigned long long Key>
constexpr int first_tiling_registration() {
  if constexpr (N >= max_tiling_registrations) {
    return -1;
  } else if constexpr (is_complete<::optiling::aopt_tiling_registration<N>>::value) {
    return N;
  } else {
    return first_tiling_registration<N + 1, Key>();
  }
}

template <unsigned long long OpTypeKey, bool Registered>
struct registered_tiling_select {
  using type = typename ::optiling::aopt_tiling_for_op_type<OpTypeKey>::type;
};
template <unsigned long long OpTypeKey>
struct registered_tiling_select<OpTypeKey, false> {
  static constexpr int first = first_tiling_registration<0, OpTypeKey>();
  static_assert(first >= 0,
                "GET_TILING_DATA: the tiling header registers no class "
                "(REGISTER_TILING_DATA_CLASS(OpType, TilingDataClass))");
  using type = typename ::optiling::aopt_tiling_registration<(first < 0 ? 0 : first)>::type;
};

// The class a kernel of the op type with key `OpTypeKey` reads with GET_TILING_DATA.
template <unsigned long long OpTypeKey>
using registered_tiling_t = typename registered_tiling_select<
    OpTypeKey, is_complete<::optiling::aopt_tiling_for_op_type<OpTypeKey>>::value>::type;

}  // namespace aopt_sim
