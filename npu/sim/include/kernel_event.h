// aopt simulator: CANN's kernel_event.h, one of the headers kernel_operator.h is assembled from;
// kernels that include it directly get the whole simulated kernel API.
#pragma once

#include "kernel_operator.h"
