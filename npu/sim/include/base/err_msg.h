// aopt simulator: host-side CANN environment shim (clean-room). CANN's error-message report
// macro: host code reports an error code ("EZ9999") and a printf-style message to the
// framework's error manager, which shows it with the failing operator. The simulator has no
// error manager: a tiling program's failure reaches the user through its return code, so the
// report is dropped. Its arguments stay referenced (never evaluated), so a value computed only
// for the message is no unused variable.
#pragma once

namespace aopt_err_msg {
inline void dropped(const char* /*error_code*/, const char* /*fmt*/, ...) {}
}  // namespace aopt_err_msg

#define REPORT_INNER_ERR_MSG(error_code, fmt, ...)                    \
  do {                                                                \
    if (false) aopt_err_msg::dropped(error_code, fmt, ##__VA_ARGS__); \
  } while (0)
