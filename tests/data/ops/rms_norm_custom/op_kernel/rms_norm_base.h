// Shared pieces of the rms_norm_custom kernel, kept in a helper header beside the entry as
// public operators keep theirs (included by a relative path).
#ifndef RMS_NORM_BASE_H
#define RMS_NORM_BASE_H
#include "kernel_operator.h"

namespace RmsNormCustom {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;
constexpr uint32_t FLOAT_PER_BLOCK = 8;  // one row's sum per 32-byte block

__aicore__ inline uint32_t Min(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

// The scalar unit waits for the vector unit before reading what it wrote.
__aicore__ inline void WaitVectorForScalar()
{
    event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
    SetFlag<HardEvent::V_S>(eventVS);
    WaitFlag<HardEvent::V_S>(eventVS);
}

// The vector unit waits for the scalar unit's reads before overwriting their source.
__aicore__ inline void WaitScalarForVector()
{
    event_t eventSV = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::S_V));
    SetFlag<HardEvent::S_V>(eventSV);
    WaitFlag<HardEvent::S_V>(eventSV);
}
}  // namespace RmsNormCustom
#endif  // RMS_NORM_BASE_H
