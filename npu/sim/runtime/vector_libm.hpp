// The C library's single-precision transcendental functions that the vector unit's element-wise
// instructions compute (Exp, Ln, Tanh, Sin, Cos, Erf and the activations built on them), declared
// with their vector variants (glibc's libmvec, named by the x86-64 vector function ABI), so that a
// loop compiled with -fno-math-errno calls one variant per 4, 8 or 16 elements instead of the
// scalar function per element (issue 33: Exp alone was 54 % of a gelu candidate's CPU).
//
// libmvec's results are not libm's: measured over 560k floats in [-100, 100], Exp, Tanh, Sin, Cos
// and Erf are within 2 ulp of the scalar function and Ln within 4; every fp16 input's Exp, Tanh,
// Cos and Erf round to the same fp16 as before (Ln differs in 3 of 65536, Sin in 2). The
// hardware's instructions are not libm's either, and the checker compares with a tolerance.
// The variants for SSE, AVX2 and AVX-512 differ from one another in the last bit, so the loops
// that call them are compiled for AVX2 and the baseline only (AOPT_SIM_LIBM_LOOP): the results are
// the same on every machine with AVX2.
#pragma once

extern "C" {
float expf(float) noexcept __attribute__((simd("notinbranch")));
float logf(float) noexcept __attribute__((simd("notinbranch")));
float tanhf(float) noexcept __attribute__((simd("notinbranch")));
float sinf(float) noexcept __attribute__((simd("notinbranch")));
float cosf(float) noexcept __attribute__((simd("notinbranch")));
float erff(float) noexcept __attribute__((simd("notinbranch")));
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AOPT_SIM_LIBM_LOOP \
  __attribute__((target_clones("arch=x86-64-v3", "default"), optimize("O3")))
#else
#define AOPT_SIM_LIBM_LOOP
#endif
