// Shared by host and kernel, included from op_kernel/ by a climbing path and from the package
// root.
#ifndef TEAM_LAYOUT_ADD_CONSTS_H
#define TEAM_LAYOUT_ADD_CONSTS_H
#include <cstdint>
constexpr uint32_t kTeamLayoutBlocks = 8;
#endif
