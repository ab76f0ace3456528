// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// AscendCL's base header, the part a tiling program's logging reaches: the log levels, aclError
// and aclAppLog with its ACL_APP_LOG macro (documented in the AscendCL API reference, "aclAppLog").
// A log line goes to the tiling process's standard error, as "[level] file:line func: message".
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>

using aclError = int;
constexpr aclError ACL_SUCCESS = 0;

typedef enum {
  ACL_DEBUG = 0,
  ACL_INFO = 1,
  ACL_WARNING = 2,
  ACL_ERROR = 3,
} aclLogLevel;

inline void aclAppLog(aclLogLevel logLevel, const char* func, const char* file, uint32_t line,
                      const char* fmt, ...) {
  static const char* const names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
  const unsigned level = static_cast<unsigned>(logLevel);
  std::fprintf(stderr, "[%s] %s:%u %s: ", level < 4 ? names[level] : "LOG", file, line, func);
  va_list args;
  va_start(args, fmt);
  std::vfprintf(stderr, fmt, args);
  va_end(args);
  std::fputc('\n', stderr);
}

#define ACL_APP_LOG(level, fmt, ...) \
  aclAppLog(level, __FUNCTION__, __FILE__, __LINE__, fmt, ##__VA_ARGS__)
