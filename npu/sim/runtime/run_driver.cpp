#include "run_driver.hpp"

#include <chrono>
#include <exception>
#include <optional>
#include <string>

#include "driver_expected.hpp"
#include "driver_judge.hpp"
#include "driver_report.hpp"

namespace aopt::sim {

int run_driver(const nlohmann::json& spec_json, const candidate_entries& entries,
               nlohmann::json& result) {
  const auto started = std::chrono::steady_clock::now();
  std::optional<driver_spec> spec;
  try {
    spec = parse_driver_spec(spec_json);
  } catch (const std::exception& e) {
    result = failed_result(nullptr, npu::eval_status::infra_error, "bad_spec",
                           std::string("driver spec: ") + e.what());
    return 2;
  }
  if (entries.tiling == nullptr || entries.kernel == nullptr || entries.reference == nullptr) {
    result = failed_result(&*spec, npu::eval_status::infra_error, "bad_spec",
                           "driver: the candidate lacks a tiling, kernel or reference entry point");
    return 2;
  }
  // Through the wire format, as between the processes of sim_device.
  const run_report report = decode_report(encode_report(collect_report(*spec, entries)));
  const expected_outputs expected =
      compute_expected(spec->op, entries.reference, static_cast<uint32_t>(report.sets.size()));
  judgement judged = judge_run(*spec, report, expected);
  judged.result.run_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  result = judged.result;
  if (judged.first_set_tiling) {
    result["tiling_key"] = judged.first_set_tiling->tiling_key;
    result["block_dim"] = judged.first_set_tiling->block_dim;
    result["workspace_bytes"] = judged.first_set_tiling->workspace_bytes;
  }
  return 0;
}

}  // namespace aopt::sim
