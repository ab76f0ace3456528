#include "npu/protocol/tolerance.hpp"

namespace aopt::npu {

tolerance default_tolerance(dtype t) {
  switch (t) {
    case dtype::float32:
      return {1e-4, 1e-4, 1e-4};
    case dtype::float16:
      return {1e-3, 1e-3, 1e-3};
    case dtype::bfloat16:
      return {4e-3, 4e-3, 4e-3};
    default:
      return {0, 0, 0};
  }
}

}  // namespace aopt::npu
