// The slots of aopt_sim/lifted_constants.h, one array per integer type a lifted constant may be
// declared with, filled from the parent's AOPT_SIM_LIFTED before the candidate's initializers.
#include <cstdio>
#include <cstdlib>

#include "aopt_sim/lifted_constants.h"
#include "lifted_values.hpp"

namespace aopt_lifted {

template <>
signed char slot<signed char>[64] = {};
template <>
unsigned char slot<unsigned char>[64] = {};
template <>
short slot<short>[64] = {};
template <>
unsigned short slot<unsigned short>[64] = {};
template <>
int slot<int>[64] = {};
template <>
unsigned int slot<unsigned int>[64] = {};
template <>
long slot<long>[64] = {};
template <>
unsigned long slot<unsigned long>[64] = {};
template <>
long long slot<long long>[64] = {};
template <>
unsigned long long slot<unsigned long long>[64] = {};

namespace {

static_assert(aopt::sim::lifted_slot_count == 64, "aopt_sim/lifted_constants.h declares 64");

template <class T>
void store(uint32_t index, unsigned long long value) {
  // The conversion a constant's initializer makes from its (non-negative) literal.
  slot<T>[index] = static_cast<T>(value);
}

// Priority 101: before every constructor and initializer of default priority, the candidate's
// among them.
__attribute__((constructor(101))) void store_lifted_values() {
  const char* text = std::getenv(aopt::sim::lifted_values_variable);
  if (text == nullptr) return;
  const auto values = aopt::sim::parse_lifted_values(text);
  if (!values) {
    std::fprintf(stderr, "aopt: %s is malformed\n", aopt::sim::lifted_values_variable);
    std::abort();
  }
  for (uint32_t i = 0; i < values->size(); ++i) {
    const unsigned long long v = (*values)[i];
    store<signed char>(i, v);
    store<unsigned char>(i, v);
    store<short>(i, v);
    store<unsigned short>(i, v);
    store<int>(i, v);
    store<unsigned int>(i, v);
    store<long>(i, v);
    store<unsigned long>(i, v);
    store<long long>(i, v);
    store<unsigned long long>(i, v);
  }
}

}  // namespace
}  // namespace aopt_lifted
