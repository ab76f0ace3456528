// main() of an operator's reference process: `<exe> <spec> <input sets>`. The spec's input_fds
// name the input store's sealed sets when aopt shares them; the others are drawn from the seed.
// Linked with the package's reference.cpp and nothing of any candidate. Delivers the expected
// outputs and input fingerprints (driver_expected.hpp) on its channel (stdout, driver_channel.hpp).
// Exits 0 once delivered (a failing reference is part of the delivery), 2 for unusable arguments, 3
// when the channel is gone.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "driver_channel.hpp"
#include "driver_expected.hpp"
#include "shared_inputs.hpp"

int main(int argc, char** argv) {
  aopt::sim::delivery_channel channel;
  if (argc != 3) {
    std::cerr << "usage: " << (argc > 0 ? argv[0] : "reference") << " <spec> <input sets>\n";
    return 2;
  }
  aopt::sim::expected_outputs expected;
  try {
    const auto spec = aopt::sim::read_driver_spec(argv[1]);
    const auto sets = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
    expected = aopt::sim::compute_expected(spec.op, &aopt_reference, sets, [&spec](uint32_t set) {
      return aopt::sim::inputs_of(spec, set);
    });
  } catch (const std::exception& e) {
    std::cerr << "reference: " << e.what() << '\n';
    return 2;
  }
  if (!channel.deliver(aopt::sim::encode_expected(expected))) {
    std::cerr << "reference: the delivery channel is gone\n";
    return 3;
  }
  aopt::sim::delivery_channel::exit_delivered();
}
