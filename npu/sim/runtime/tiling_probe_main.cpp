// main() of a tiling probe: `<exe> <spec>`, linked with the candidate's host unit only (no
// kernel, no reference). Calls the tiling function once on the operator's first input set and
// delivers what it decided (tiling_probe_report.hpp) on the channel (stdout,
// driver_channel.hpp), unchecked: the trusted parent judges it. Exits 0 once delivered, 2 for an
// unusable spec, 3 when the channel is gone.
#include <exception>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "aopt_sim/driver_entry.h"
#include "driver.hpp"
#include "driver_channel.hpp"
#include "shared_inputs.hpp"
#include "tiling_probe_report.hpp"

int main(int argc, char** argv) {
  aopt::sim::delivery_channel channel;
  if (argc != 2) {
    std::cerr << "usage: " << (argc > 0 ? argv[0] : "probe") << " <spec>\n";
    return 2;
  }
  aopt::sim::tiling_call call;
  try {
    const auto spec = aopt::sim::read_driver_spec(argv[1]);
    const aopt::sim::input_set inputs(spec, 0);
    call = aopt::sim::call_tiling(spec, &aopt_tiling_entry, inputs.data());
  } catch (const std::exception& e) {
    std::cerr << "probe: " << e.what() << '\n';
    return 2;
  }
  std::cout.flush();
  if (!channel.deliver(aopt::sim::encode_tiling_probe(call))) {
    std::cerr << "probe: the delivery channel is gone\n";
    return 3;
  }
  return 0;
}
