// aopt simulator: host-side CANN environment shim. The older path of CANN's log header: the
// same interface as base/dlog_pub.h.
#pragma once

#include "base/dlog_pub.h"
