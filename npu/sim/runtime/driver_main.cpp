// main() of every compiled candidate: `<exe> <spec.json> <result.json>`. Reads the spec, runs
// the driver on the candidate's generated entry points and writes the result. Exits 0 whenever
// the result file was written, whatever the evaluation's status; a crash, a kill or a non-zero
// exit tells the parent that no result exists.
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "aopt_sim/driver_entry.h"
#include "driver.hpp"

namespace {

bool write_result(const char* path, const nlohmann::json& result) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << result.dump(2) << '\n';
  out.close();
  return static_cast<bool>(out);
}

nlohmann::json infra_error(const std::string& message) {
  return {{"status", "infra_error"},
          {"error_kind", "bad_spec"},
          {"message", message},
          {"device", "sim"},
          {"diagnostics", nlohmann::json::array()}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: " << (argc > 0 ? argv[0] : "candidate") << " <spec.json> <result.json>\n";
    return 2;
  }
  nlohmann::json result;
  try {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
      result = infra_error(std::string("driver: cannot open spec ") + argv[1]);
    } else {
      const nlohmann::json spec = nlohmann::json::parse(in);
      aopt::sim::candidate_entries entries;
      entries.tiling = &aopt_tiling_entry;
      entries.kernel = &aopt_kernel_entry;
      entries.reference = &aopt_reference;
      aopt::sim::run_driver(spec, entries, result);
    }
  } catch (const std::exception& e) {
    result = infra_error(std::string("driver: ") + e.what());
  }
  // The kernel may have printed without a newline; keep the parent's log readable.
  std::fflush(stdout);
  if (!write_result(argv[2], result)) {
    std::cerr << "driver: cannot write result " << argv[2] << '\n';
    return 3;
  }
  return 0;
}
