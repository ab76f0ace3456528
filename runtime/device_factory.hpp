// Builds the configured device ([device], and [cann]/[cascade] for those kinds) and the
// evaluation options from the [device] config section.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.hpp"
#include "config/aopt_config.hpp"
#include "npu/cann/drift_board.hpp"
#include "npu/device.hpp"

namespace aopt::runtime {

// `redact`: the secrets no candidate output may carry back (secrets_to_redact). `drift`: the
// board CANN devices publish baseline drift checks on (null = their own).
result<std::shared_ptr<npu::device>> make_device(const config::aopt_config& config,
                                                 std::vector<std::string> redact = {},
                                                 std::shared_ptr<npu::drift_board> drift = nullptr);
// The configured secrets as they are in this process: the LLM API key ($llm.api_key_env) and
// the bearer token (server.token, $server.token_env), the workers' secret (workers.secret,
// $workers.secret_env).
std::vector<std::string> secrets_to_redact(const config::aopt_config& config);
npu::eval_options make_eval_options(const config::device_config& config);

}  // namespace aopt::runtime
