#include "runtime/device_factory.hpp"

#include <cstdlib>
#include <utility>

#include "base/scratch_dir.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/device/sim_device.hpp"

namespace aopt::runtime {

result<std::shared_ptr<npu::device>> make_device(const config::device_config& config,
                                                 std::vector<std::string> redact) {
  if (config.kind != config::device_kind::sim) {
    return failed_precondition("device.kind = " + std::string(config::to_string(config.kind)) +
                               ": this build has only the simulator device");
  }
  result<sim::hw_profile> profile =
      npu::find_hardware_profile(config.profile, config::hardware_dir(config));
  // A profile that is missing or broken is a bad configuration, whatever the cause.
  if (!profile.ok()) return invalid_argument("device.profile: " + profile.error().message());
  if (!config.auto_sync) profile->auto_sync = false;
  npu::sim_device_options options;
  if (!config.work_dir.empty()) {
    // An unwritable work_dir would fail every evaluation as an infrastructure error.
    if (result<scratch_dir> probe = scratch_dir::create(config.work_dir, ".write-check-");
        !probe.ok()) {
      return invalid_argument("device.work_dir: " + probe.error().message());
    }
    options.work_dir = config.work_dir;
  }
  options.keep_scratch = config.keep_scratch;
  options.cpu_seconds = config.cpu_seconds;
  options.address_space_bytes = static_cast<uint64_t>(config.address_space_mb) << 20;
  options.compiler_address_space_bytes = options.address_space_bytes;
  options.redact = std::move(redact);
  return std::shared_ptr<npu::device>(std::make_shared<npu::sim_device>(*profile, options));
}

std::vector<std::string> secrets_to_redact(const config::aopt_config& config) {
  std::vector<std::string> secrets;
  auto add = [&](const char* value) {
    if (value != nullptr && *value != '\0') secrets.emplace_back(value);
  };
  if (!config.llm.api_key_env.empty()) add(std::getenv(config.llm.api_key_env.c_str()));
  if (!config.server.token_env.empty()) add(std::getenv(config.server.token_env.c_str()));
  add(config.server.token.c_str());
  return secrets;
}

npu::eval_options make_eval_options(const config::device_config& config) {
  npu::eval_options o;
  o.input_sets = config.input_sets;
  o.repetitions = config.repetitions;
  o.timeout_seconds = config.timeout_s;
  o.compile_timeout_seconds = config.compile_timeout_s;
  o.detect_races = config.detect_races;
  o.noise_stddev_fraction = config.noise_stddev;
  return o;
}

}  // namespace aopt::runtime
