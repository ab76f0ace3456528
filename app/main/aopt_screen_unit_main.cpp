// The AST screen's parser (npu/sim/device/ast_screen_unit.hpp): a screen starts it for each unit,
// with the request on descriptor 3, under CPU-time and memory limits, and reads the verdict it
// prints.
#include "npu/sim/device/ast_screen_unit.hpp"

int main() {
  return aopt::npu::run_screen_unit(3);
}
