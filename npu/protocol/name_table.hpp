// The names of an enum's values as the protocol's JSON spells them (dtype, eval_status): one
// table per enum, read both ways.
#pragma once

#include <cstddef>
#include <string>

namespace aopt::npu {

template <class E>
struct enum_name {
  E value;
  const char* name;
};

// The first name of `value` in `table` (canonical names come first), "unknown" for none.
template <class E, size_t N>
const char* name_of(const enum_name<E> (&table)[N], E value) {
  for (const auto& n : table) {
    if (n.value == value) return n.name;
  }
  return "unknown";
}

// Sets `out` to the value named `text`; false when `table` has no such name.
template <class E, size_t N>
bool value_named(const enum_name<E> (&table)[N], const std::string& text, E& out) {
  for (const auto& n : table) {
    if (text == n.name) {
      out = n.value;
      return true;
    }
  }
  return false;
}

}  // namespace aopt::npu
