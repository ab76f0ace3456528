// The AST screen's parser (npu/sim/device/ast_screen_unit.hpp): a screen starts it with the
// CPU seconds each unit may take as its argument and hands it units on descriptor 3
// (npu/sim/device/screen_parser_pool.hpp) until it closes that socket.
#include <cstdint>
#include <cstdlib>

#include "npu/sim/device/ast_screen_unit.hpp"
#include "npu/sim/device/screen_parser_pool.hpp"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const uint64_t cpu_seconds = std::strtoull(argv[1], nullptr, 10);
  if (cpu_seconds == 0) return 2;
  return aopt::npu::serve_screen_requests(3, cpu_seconds, &aopt::npu::judge_screen_request);
}
