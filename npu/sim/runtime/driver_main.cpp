// main() of every compiled candidate: `<exe> <spec>`. Runs the candidate's input sets on the
// simulator and delivers outputs and traces (driver_report.hpp) on the channel (stdout,
// driver_channel.hpp). It writes no result: the trusted parent judges the delivery. Exits 0 once
// the delivery is written; 2 for an unusable spec, 3 when the channel is gone.
#include <exception>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "aopt_sim/driver_entry.h"
#include "driver.hpp"
#include "driver_channel.hpp"
#include "driver_codec.hpp"
#include "driver_report.hpp"

int main(int argc, char** argv) {
  aopt::sim::delivery_channel channel;
  if (argc != 2) {
    std::cerr << "usage: " << (argc > 0 ? argv[0] : "candidate") << " <spec>\n";
    return 2;
  }
  aopt::sim::run_report report;
  try {
    const auto spec = aopt::sim::read_driver_spec(argv[1]);
    aopt::sim::candidate_entries entries;
    entries.tiling = &aopt_tiling_entry;
    entries.kernel = &aopt_kernel_entry;
    report = aopt::sim::collect_report(spec, entries);
  } catch (const std::exception& e) {
    std::cerr << "driver: " << e.what() << '\n';
    return 2;
  }
  std::cout.flush();
  // Streamed: the outputs go from where the run left them, never copied into one text.
  aopt::sim::byte_writer delivery(
      [&](const char* data, size_t size) { return channel.deliver(data, size); });
  aopt::sim::encode_report(report, delivery);
  if (!delivery.flush()) {
    std::cerr << "driver: the delivery channel is gone\n";
    return 3;
  }
  aopt::sim::delivery_channel::exit_delivered();
}
