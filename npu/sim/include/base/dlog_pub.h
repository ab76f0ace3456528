// aopt simulator: host-side CANN environment shim (clean-room, from public documentation).
// CANN's log interface (the log reference: DlogRecord, CheckLogLevel, dlog_getlevel,
// dlog_setlevel, the Dlog/DlogSub macros, the module ids and levels). Host code logs through it;
// in the simulator every module's level is DLOG_NULL ("don't output log"), so a log line is never
// formatted nor written: its arguments are not evaluated, as on CANN when the level is off. A
// tiling program's own failures reach the user through its return code and the simulator's
// messages, and stdout stays clean for --json.
#pragma once

#include <stdarg.h>  // NOLINT(modernize-deprecated-headers): a C interface
#include <stdint.h>  // NOLINT(modernize-deprecated-headers)

#define DLOG_DEBUG 0x0
#define DLOG_INFO 0x1
#define DLOG_WARN 0x2
#define DLOG_ERROR 0x3
#define DLOG_NULL 0x4
// Event logs are switched apart from the levels (enableEvent).
#define DLOG_EVENT 0x10

// The log type a module id may be or-ed with (DlogRecord's module_id: "module | log type").
#define DEBUG_LOG_MASK 0x00010000
#define SECURITY_LOG_MASK 0x00100000
#define RUN_LOG_MASK 0x01000000

// Module ids, in the order the log reference lists them; only their distinctness matters here.
enum {
  SLOG,
  IDEDD,
  IDEDH,
  HCCL,
  FMK,
  HIAIENGINE,
  DVPP,
  RUNTIME,
  CCE,
  HDC,
  DRV,
  MDCFUSION,
  MDCLOCATION,
  MDCPERCEPTION,
  MDCFSM,
  MDCCOMMON,
  MDCMONITOR,
  MDCBSWP,
  MDCDEFAULT,
  MDCSC,
  MDCPNC,
  MLL,
  DEVMM,
  KERNEL,
  LIBMEDIA,
  CCECPU,
  ASCENDDK,
  ROS,
  HCCP,
  ROCE,
  TEFUSION,
  PROFILING,
  DP,
  APP,
  TS,
  TSDUMP,
  AICPU,
  LP,
  TDT,
  FE,
  MD,
  MB,
  ME,
  IMU,
  IMP,
  GE,
  MDCFUSA,
  CAMERA,
  ASCENDCL,
  TEEOS,
  ISP,
  SIS,
  HSM,
  DSS,
  PROCMGR,
  BBOX,
  AIVECTOR,
  TBE,
  FV,
  MDCMAP,
  TUNE,
  HSS,
  FFTS,
  OP,
  INVLID_MOUDLE_ID
};

// The module's debug log level; *enableEvent says whether its event logs are on.
inline int dlog_getlevel(int /*moduleId*/, int* enableEvent) {
  if (enableEvent != nullptr) *enableEvent = 0;
  return DLOG_NULL;
}
// Accepted (0) and without effect: the simulator keeps every level at DLOG_NULL.
inline int dlog_setlevel(int /*moduleId*/, int /*level*/, int /*enableEvent*/) {
  return 0;
}
// 1 when a log of `level` from the module would be written: never here.
inline int CheckLogLevel(int /*moduleId*/, int /*level*/) {
  return 0;
}
inline void DlogRecord(int /*moduleId*/, int /*level*/, const char* /*fmt*/, ...) {}

#define Dlog(moduleId, level, fmt, ...)                                              \
  do {                                                                               \
    if (CheckLogLevel(moduleId, level) == 1) {                                       \
      DlogRecord(moduleId, level, "[%s:%d]" fmt, __FILE__, __LINE__, ##__VA_ARGS__); \
    }                                                                                \
  } while (0)
#define DlogSub(moduleId, submodule, level, fmt, ...)                               \
  do {                                                                              \
    if (CheckLogLevel(moduleId, level) == 1) {                                      \
      DlogRecord(moduleId, level, "[%s:%d][%s]" fmt, __FILE__, __LINE__, submodule, \
                 ##__VA_ARGS__);                                                    \
    }                                                                               \
  } while (0)
#define DlogError(moduleId, fmt, ...) Dlog(moduleId, DLOG_ERROR, fmt, ##__VA_ARGS__)
#define DlogWarn(moduleId, fmt, ...) Dlog(moduleId, DLOG_WARN, fmt, ##__VA_ARGS__)
#define DlogInfo(moduleId, fmt, ...) Dlog(moduleId, DLOG_INFO, fmt, ##__VA_ARGS__)
#define DlogDebug(moduleId, fmt, ...) Dlog(moduleId, DLOG_DEBUG, fmt, ##__VA_ARGS__)
#define DlogEvent(moduleId, fmt, ...) Dlog(moduleId, DLOG_EVENT, fmt, ##__VA_ARGS__)
