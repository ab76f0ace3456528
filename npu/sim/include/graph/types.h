// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
// Element types and tensor formats as host code names them (ge::DT_*, ge::FORMAT_*).
#pragma once

#include <cstdint>

#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"

namespace ge {

// Numbering follows the documented public enum so code that logs or switches on the values sees
// the familiar numbers.
enum DataType : int32_t {
  DT_FLOAT = 0,
  DT_FLOAT16 = 1,
  DT_INT8 = 2,
  DT_INT32 = 3,
  DT_UINT8 = 4,
  DT_INT16 = 6,
  DT_UINT16 = 7,
  DT_UINT32 = 8,
  DT_INT64 = 9,
  DT_UINT64 = 10,
  DT_DOUBLE = 11,
  DT_BOOL = 12,
  DT_BF16 = 27,
  DT_UNDEFINED = 28,
  DT_MAX = 29,
};

enum Format : int32_t {
  FORMAT_NCHW = 0,
  FORMAT_NHWC = 1,
  FORMAT_ND = 2,
  FORMAT_NC1HWC0 = 3,
  FORMAT_FRACTAL_Z = 4,
  FORMAT_FRACTAL_NZ = 29,
  FORMAT_NCDHW = 30,
  FORMAT_NDHWC = 27,
  FORMAT_RESERVED = 40,
  FORMAT_ALL = 41,
  FORMAT_NULL = 42,
  FORMAT_MAX = 0xff,
};

// Bytes per element; -1 for a type without a fixed size.
inline int GetSizeByDataType(DataType type) {
  switch (type) {
    case DT_FLOAT:
    case DT_INT32:
    case DT_UINT32:
      return 4;
    case DT_FLOAT16:
    case DT_BF16:
    case DT_INT16:
    case DT_UINT16:
      return 2;
    case DT_INT8:
    case DT_UINT8:
    case DT_BOOL:
      return 1;
    case DT_INT64:
    case DT_UINT64:
    case DT_DOUBLE:
      return 8;
    default:
      return -1;
  }
}

}  // namespace ge
