// AOPT_SIM_VECTOR_LOOP marks a hot loop over elements or bytes: compiled for AVX-512, AVX2 and
// baseline x86-64 (picked at load time) and optimised for vectorisation. Floating-point
// contraction stays off (ISO mode), so results are the same in every clone.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AOPT_SIM_VECTOR_LOOP \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("O3")))
#else
#define AOPT_SIM_VECTOR_LOOP
#endif
