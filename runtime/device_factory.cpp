#include "runtime/device_factory.hpp"

#include <cstdlib>
#include <utility>

#include "base/scratch_dir.hpp"
#include "npu/cann/cann_device.hpp"
#include "npu/cascade_device.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/device/sim_device.hpp"

namespace aopt::runtime {

namespace {

result<std::shared_ptr<npu::device>> make_sim_device(const config::device_config& config,
                                                     std::vector<std::string> redact) {
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
  options.lift_tiling_constants = config.lift_tiling_constants;
  options.cpu_seconds = config.cpu_seconds;
  options.address_space_bytes = static_cast<uint64_t>(config.address_space_mb) << 20;
  options.compiler_address_space_bytes = options.address_space_bytes;
  options.redact = std::move(redact);
  return std::shared_ptr<npu::device>(std::make_shared<npu::sim_device>(*profile, options));
}

// --- cann and cascade ----------------------------------------------------------------------------

result<std::shared_ptr<npu::cann_device>> make_cann_device(
    const config::aopt_config& config, std::shared_ptr<npu::measurement_log> log,
    std::shared_ptr<npu::drift_board> drift) {
  const config::cann_config& c = config.cann;
  npu::cann_device_options o;
  o.commands = {c.build, c.install, c.run, c.profile, c.flush, c.cann_version, c.driver_version};
  o.flush_bytes = c.flush_bytes;
  o.device_ids = c.device_ids;
  o.protocol.warmup_runs = c.warmup_runs;
  o.protocol.min_samples = c.min_samples;
  o.protocol.max_samples = c.max_samples;
  o.protocol.time_budget_s = c.time_budget_s;
  o.protocol.finalist_factor = c.finalist_factor;
  o.protocol.epsilon = c.epsilon;
  o.protocol.confidence = c.confidence;
  o.protocol.baseline_every = c.baseline_every;
  o.protocol.drift_threshold = c.drift_threshold;
  if (!config.device.work_dir.empty()) o.work_dir = config.device.work_dir;
  o.keep_scratch = config.device.keep_scratch;
  o.profile_name = config.device.profile;
  o.log = std::move(log);
  o.drift = std::move(drift);
  return npu::cann_device::create(std::move(o));
}

result<std::shared_ptr<npu::measurement_log>> open_measurements(const config::cann_config& c) {
  if (c.measurements_file.empty()) return std::shared_ptr<npu::measurement_log>();
  auto log = npu::measurement_log::open(c.measurements_file);
  if (!log.ok()) return log.error().with_context("cann.measurements_file");
  return log;
}

}  // namespace

result<std::shared_ptr<npu::device>> make_device(const config::aopt_config& config,
                                                 std::vector<std::string> redact,
                                                 std::shared_ptr<npu::drift_board> drift) {
  if (config.device.kind == config::device_kind::sim) {
    return make_sim_device(config.device, std::move(redact));
  }
  auto log = open_measurements(config.cann);
  if (!log.ok()) return log.error();
  const bool cascade = config.device.kind == config::device_kind::cascade;
  // Under the cascade, the cascade writes the records: it has the simulator's side too.
  auto hardware = make_cann_device(config, cascade ? nullptr : *log, std::move(drift));
  if (!hardware.ok()) return hardware.error();
  if (!cascade) return std::shared_ptr<npu::device>(*hardware);
  auto simulator = make_sim_device(config.device, std::move(redact));
  if (!simulator.ok()) return simulator.error();
  return std::shared_ptr<npu::device>(
      std::make_shared<npu::cascade_device>(*simulator, *hardware, config.cascade.margin, *log));
}

std::vector<std::string> secrets_to_redact(const config::aopt_config& config) {
  std::vector<std::string> secrets;
  auto add = [&](const char* value) {
    if (value != nullptr && *value != '\0') secrets.emplace_back(value);
  };
  if (!config.llm.api_key_env.empty()) add(std::getenv(config.llm.api_key_env.c_str()));
  if (!config.server.token_env.empty()) add(std::getenv(config.server.token_env.c_str()));
  add(config.server.token.c_str());
  // The evaluation workers' shared secret (issue 19).
  if (!config.workers.secret_env.empty()) add(std::getenv(config.workers.secret_env.c_str()));
  add(config.workers.secret.c_str());
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
