// Builds the configured device and the evaluation options from the [device] config section.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "npu/device.hpp"

namespace aopt::runtime {

// `redact`: the secrets no candidate output may carry back (secrets_to_redact).
result<std::shared_ptr<npu::device>> make_device(const config::device_config& config,
                                                 std::vector<std::string> redact = {});
// The configured secrets as they are in this process: the LLM API key ($llm.api_key_env) and
// the bearer token (server.token, $server.token_env).
std::vector<std::string> secrets_to_redact(const config::aopt_config& config);
npu::eval_options make_eval_options(const config::device_config& config);

}  // namespace aopt::runtime
