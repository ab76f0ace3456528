// aopt simulator: host-side CANN API shim (clean-room, from public documentation).
#pragma once

#include <cstdint>
#include <string>

#include "graph/types.h"

namespace ge {

class TypeUtils {
 public:
  // Writes the element size in bytes; false for a type without one.
  static bool GetDataTypeLength(DataType type, uint32_t& length) {
    const int size = GetSizeByDataType(type);
    if (size <= 0) return false;
    length = static_cast<uint32_t>(size);
    return true;
  }

  static std::string DataTypeToSerialString(DataType type) {
    switch (type) {
      case DT_FLOAT:
        return "DT_FLOAT";
      case DT_FLOAT16:
        return "DT_FLOAT16";
      case DT_BF16:
        return "DT_BF16";
      case DT_INT8:
        return "DT_INT8";
      case DT_UINT8:
        return "DT_UINT8";
      case DT_INT16:
        return "DT_INT16";
      case DT_UINT16:
        return "DT_UINT16";
      case DT_INT32:
        return "DT_INT32";
      case DT_UINT32:
        return "DT_UINT32";
      case DT_INT64:
        return "DT_INT64";
      case DT_UINT64:
        return "DT_UINT64";
      case DT_DOUBLE:
        return "DT_DOUBLE";
      case DT_BOOL:
        return "DT_BOOL";
      default:
        return "DT_UNDEFINED";
    }
  }
};

}  // namespace ge
