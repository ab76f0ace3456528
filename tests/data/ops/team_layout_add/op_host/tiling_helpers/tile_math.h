#ifndef TEAM_LAYOUT_TILE_MATH_H
#define TEAM_LAYOUT_TILE_MATH_H
#include <cstdint>
namespace team_layout {
inline uint32_t CeilDiv(uint32_t a, uint32_t b) { return (a + b - 1) / b; }
}  // namespace team_layout
#endif
