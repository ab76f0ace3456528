// aopt simulator: CANN's kernel_tpipe_impl.h, where TPipe, TQue and TBuf are implemented; the
// simulator's are in kernel_operator.h (aopt_sim/kernel/pipe.h).
#pragma once

#include "kernel_operator.h"
