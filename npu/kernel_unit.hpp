// The device kernel as one text: many operators keep their kernel class in a header of their
// own next to the kernel file (op_kernel/knn.h, included by a short op_kernel/knn.cpp). Stage II
// rewrites the kernel text K, so the code it must see is the header's. This puts each package
// header the kernel includes from its own folder in place of its #include line (recursively,
// each header once, as an include guard would), which compiles to the same program.
//
// Headers elsewhere in the package (the tiling data under op_host/, shared with the host
// program), headers the host program also includes, angled includes and headers of include
// folders stay included: only the operator's own kernel code is joined.
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include "npu/op_package.hpp"

namespace aopt::npu {

// The kernel file's text with its own headers joined in; the kernel file's text as it is when
// it includes none.
std::string kernel_with_own_headers(const op_package& op);

}  // namespace aopt::npu
