// Test operator: a (bounded) fork bomb. Inside the sandbox the first fork fails and the kernel
// aborts; without one it would make 2^10 processes. Either way aopt must not hang.
#include <unistd.h>

#include <cstdlib>

#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_fork_bomb(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                                    GM_ADDR workspace, GM_ADDR tiling) {
  for (int generation = 0; generation < 10; ++generation) {
    if (fork() < 0) std::abort();
  }
}
