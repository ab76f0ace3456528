// Outputs an operator accumulates into: a kernel that adds into its outputs with SetAtomicAdd
// needs them initialised by whoever allocates them, since accumulating into garbage means
// nothing, and the frameworks zero-fill them (the public operator libraries' wrappers allocate
// such outputs with zeros). An op.json that gives such an output no initial contents ("init",
// op_spec.hpp) is read as that convention: the output starts as zeros instead of poison, and the
// package says so (a warning on every result), so nothing is assumed silently.
//
// The decision reads the package's own kernel (with its own headers, npu/kernel_unit.hpp), never
// a candidate's: a candidate cannot change what its outputs start as. An output that op.json
// initialises keeps its init. The price: an output so initialised is no longer checked for
// elements the kernel never wrote (they read as zeros, as on the framework's allocation).
#pragma once

#include <string>
#include <vector>

#include "npu/op_package.hpp"

namespace aopt::npu {

// Sets "init": zeros on the outputs of `op` without an init when its kernel calls SetAtomicAdd;
// returns one sentence per output so changed.
std::vector<std::string> assume_zero_init_of_accumulated_outputs(op_package& op);

}  // namespace aopt::npu
