// aopt simulator: host-side CANN environment shim (clean-room, from public documentation).
// The bounds-checked C library every CANN installation ships (libboundscheck, "securec"): the
// memory, string and formatting functions host code calls, with their documented contracts.
// Each takes the destination's capacity (destMax) and returns EOK on success; on a bad argument
// it leaves a documented state and returns an error code:
//   * dest null: EINVAL, nothing written;
//   * destMax 0 or above the library's limit (2^31 - 1): ERANGE, nothing written;
//   * src null, the data not fitting destMax, or (memcpy_s, the string copies) overlapping
//     buffers: the destination is reset (zeroed, memset_s: filled, strings: made empty) and the
//     code is EINVAL_AND_RESET, ERANGE_AND_RESET or EOVERLAP_AND_RESET.
// The formatting functions return the characters written, or -1 (dest made empty) when the text
// does not fit or an argument is bad. Header-only, so a tiling program needs no library.
#pragma once

#include <errno.h>   // NOLINT(modernize-deprecated-headers): securec is a C interface
#include <stdarg.h>  // NOLINT(modernize-deprecated-headers)
#include <stdio.h>   // NOLINT(modernize-deprecated-headers)
#include <string.h>  // NOLINT(modernize-deprecated-headers)

typedef int errno_t;

#ifndef EOK
#define EOK 0
#endif
// securec's reset codes are the errno value with bit 7 set.
#define EINVAL_AND_RESET (EINVAL | 128)
#define ERANGE_AND_RESET (ERANGE | 128)
#define EOVERLAP_AND_RESET (54 | 128)

#define SECUREC_MEM_MAX_LEN 0x7fffffffUL
#define SECUREC_STRING_MAX_LEN 0x7fffffffUL

namespace aopt_securec {

inline bool bad_capacity(size_t destMax, unsigned long limit) {
  return destMax == 0 || destMax > limit;
}

inline bool overlap(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const char* x = static_cast<const char*>(a);
  const char* y = static_cast<const char*>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

// A string of `len` characters plus its terminator from src to dest; the checks shared by the
// copies and concatenations. `at` is where in dest the string goes.
inline errno_t put_string(char* dest, size_t destMax, size_t at, const char* src, size_t len) {
  if (at + len + 1 > destMax) {
    dest[0] = '\0';
    return ERANGE_AND_RESET;
  }
  if (overlap(dest, destMax, src, len + 1)) {
    dest[0] = '\0';
    return EOVERLAP_AND_RESET;
  }
  memmove(dest + at, src, len);  // apart here; see memcpy_s
  dest[at + len] = '\0';
  return EOK;
}

}  // namespace aopt_securec

inline errno_t memset_s(void* dest, size_t destMax, int c, size_t count) {
  if (dest == nullptr) return EINVAL;
  if (aopt_securec::bad_capacity(destMax, SECUREC_MEM_MAX_LEN)) return ERANGE;
  if (count > destMax) {
    memset(dest, c, destMax);
    return ERANGE_AND_RESET;
  }
  memset(dest, c, count);
  return EOK;
}

inline errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
  if (dest == nullptr) return EINVAL;
  if (aopt_securec::bad_capacity(destMax, SECUREC_MEM_MAX_LEN)) return ERANGE;
  if (count == 0) return EOK;
  if (src == nullptr) {
    memset(dest, 0, destMax);
    return EINVAL_AND_RESET;
  }
  if (count > destMax) {
    memset(dest, 0, destMax);
    return ERANGE_AND_RESET;
  }
  if (aopt_securec::overlap(dest, count, src, count)) {
    memset(dest, 0, destMax);
    return EOVERLAP_AND_RESET;
  }
  // The buffers are apart here, but a compiler inlining a call on overlapping ones cannot see
  // it (-Wrestrict): memmove copies them the same.
  memmove(dest, src, count);
  return EOK;
}

// Overlapping buffers are what memmove_s is for: copied as memmove does.
inline errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count) {
  if (dest == nullptr) return EINVAL;
  if (aopt_securec::bad_capacity(destMax, SECUREC_MEM_MAX_LEN)) return ERANGE;
  if (count == 0) return EOK;
  if (src == nullptr) {
    memset(dest, 0, destMax);
    return EINVAL_AND_RESET;
  }
  if (count > destMax) {
    memset(dest, 0, destMax);
    return ERANGE_AND_RESET;
  }
  memmove(dest, src, count);
  return EOK;
}

inline errno_t strcpy_s(char* dest, size_t destMax, const char* src) {
  if (dest == nullptr) return EINVAL;
  if (aopt_securec::bad_capacity(destMax, SECUREC_STRING_MAX_LEN)) return ERANGE;
  if (src == nullptr) {
    dest[0] = '\0';
    return EINVAL_AND_RESET;
  }
  return aopt_securec::put_string(dest, destMax, 0, src, strlen(src));
}

// At most `count` characters of src, always terminated.
inline errno_t strncpy_s(char* dest, size_t destMax, const char* src, size_t count) {
  if (dest == nullptr) return EINVAL;
  if (aopt_securec::bad_capacity(destMax, SECUREC_STRING_MAX_LEN)) return ERANGE;
  if (src == nullptr) {
    dest[0] = '\0';
    return EINVAL_AND_RESET;
  }
  return aopt_securec::put_string(dest, destMax, 0, src, strnlen(src, count));
}

inline errno_t strcat_s(char* dest, size_t destMax, const char* src) {
  if (dest == nullptr) return EINVAL;
  if (aopt_securec::bad_capacity(destMax, SECUREC_STRING_MAX_LEN)) return ERANGE;
  if (src == nullptr) {
    dest[0] = '\0';
    return EINVAL_AND_RESET;
  }
  const size_t at = strnlen(dest, destMax);
  if (at == destMax) {  // dest is not terminated within its capacity
    dest[0] = '\0';
    return EINVAL_AND_RESET;
  }
  return aopt_securec::put_string(dest, destMax, at, src, strlen(src));
}

inline errno_t strncat_s(char* dest, size_t destMax, const char* src, size_t count) {
  if (dest == nullptr) return EINVAL;
  if (aopt_securec::bad_capacity(destMax, SECUREC_STRING_MAX_LEN)) return ERANGE;
  if (src == nullptr) {
    dest[0] = '\0';
    return EINVAL_AND_RESET;
  }
  const size_t at = strnlen(dest, destMax);
  if (at == destMax) {
    dest[0] = '\0';
    return EINVAL_AND_RESET;
  }
  return aopt_securec::put_string(dest, destMax, at, src, strnlen(src, count));
}

// Formats into dest; -1 and an empty dest when the text (and its terminator) exceeds destMax.
inline int vsprintf_s(char* strDest, size_t destMax, const char* format, va_list argList) {
  if (strDest == nullptr || format == nullptr ||
      aopt_securec::bad_capacity(destMax, SECUREC_STRING_MAX_LEN)) {
    if (strDest != nullptr && destMax > 0) strDest[0] = '\0';
    return -1;
  }
  const int n = vsnprintf(strDest, destMax, format, argList);
  if (n < 0 || static_cast<size_t>(n) >= destMax) {
    strDest[0] = '\0';
    return -1;
  }
  return n;
}

inline int sprintf_s(char* strDest, size_t destMax, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vsprintf_s(strDest, destMax, format, args);
  va_end(args);
  return n;
}

// At most `count` characters. Text longer than count is truncated to it and -1 returned (dest
// keeps the truncated, terminated text); text that fits count but not destMax empties dest.
inline int vsnprintf_s(char* strDest, size_t destMax, size_t count, const char* format,
                       va_list argList) {
  if (strDest == nullptr || format == nullptr ||
      aopt_securec::bad_capacity(destMax, SECUREC_STRING_MAX_LEN)) {
    if (strDest != nullptr && destMax > 0) strDest[0] = '\0';
    return -1;
  }
  if (count < destMax) {
    const int n = vsnprintf(strDest, count + 1, format, argList);
    if (n < 0) {
      strDest[0] = '\0';
      return -1;
    }
    return static_cast<size_t>(n) > count ? -1 : n;
  }
  return vsprintf_s(strDest, destMax, format, argList);
}

inline int snprintf_s(char* strDest, size_t destMax, size_t count, const char* format, ...) {
  va_list args;
  va_start(args, format);
  const int n = vsnprintf_s(strDest, destMax, count, format, args);
  va_end(args);
  return n;
}
