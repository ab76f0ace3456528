#include "runtime/llm_factory.hpp"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agent/roles/role_table.hpp"
#include "llm/prompt_library.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/runtime/hw_profile.hpp"

namespace aopt::runtime {
namespace {

std::chrono::milliseconds to_ms(double seconds) {
  return std::chrono::milliseconds(std::llround(seconds * 1000.0));
}

llm::cache_mode to_llm(config::cache_mode mode) {
  switch (mode) {
    case config::cache_mode::off:
      return llm::cache_mode::off;
    case config::cache_mode::read:
      return llm::cache_mode::read;
    case config::cache_mode::readwrite:
      return llm::cache_mode::readwrite;
  }
  return llm::cache_mode::readwrite;
}

}  // namespace

llm::client_options client_options_from(const config::llm_config& c) {
  llm::client_options o;
  o.base_url = c.base_url;
  o.model = c.model;
  o.embedding_model = c.embedding_model;
  o.api_key_env = c.api_key_env;
  o.extra_headers = c.extra_headers;
  o.verify_tls = c.verify_tls;
  o.temperature = c.temperature;
  o.max_tokens = c.max_tokens;
  o.connect_timeout = to_ms(c.connect_timeout_s);
  o.timeout = to_ms(c.timeout_s);
  o.max_retries = c.max_retries;
  o.backoff_initial = std::chrono::milliseconds(c.backoff_initial_ms);
  o.backoff_max = std::chrono::milliseconds(c.backoff_max_ms);
  return o;
}

llm::gateway_options gateway_options_from(const config::llm_config& c) {
  llm::gateway_options o;
  o.max_concurrency = c.max_concurrency;
  o.requests_per_minute = c.requests_per_minute;
  o.budget_tokens = c.budget_tokens;
  o.cache = to_llm(c.cache);
  o.prices.per_1k_prompt = c.price_per_1k_prompt;
  o.prices.per_1k_completion = c.price_per_1k_completion;
  return o;
}

result<std::shared_ptr<agent::llm_service>> make_llm_service(const config::llm_config& c,
                                                             storage::store* db) {
  if (c.model.empty())
    return invalid_argument("llm.model is empty: an LLM policy needs the chat model to ask");
  result<std::shared_ptr<agent::llm_service>> service =
      agent::llm_service::make(client_options_from(c), gateway_options_from(c), db);
  if (!service.ok()) return service.error().with_context("llm");
  return service;
}

result<std::shared_ptr<agent::llm_backend>> make_llm_backend(
    const config::aopt_config& config, storage::store* db,
    std::shared_ptr<agent::llm_service> shared) {
  if (!shared) {
    result<std::shared_ptr<agent::llm_service>> own = make_llm_service(config.llm, db);
    if (!own.ok()) return own.error();
    shared = std::move(*own);
  }

  result<sim::hw_profile> hw =
      npu::find_hardware_profile(config.device.profile, config::hardware_dir(config.device));
  if (!hw.ok()) return hw.error().with_context("device.profile");

  // The hooked roles' templates sit next to their sources (agent/roles/<template>.md).
  std::vector<std::filesystem::path> folders = {config::builtin_config_dir() / "prompts",
                                                agent::role_prompts_dir()};
  if (!config.llm.prompts_dir.empty()) folders.push_back(config::prompts_dir(config.llm));
  result<llm::prompt_library> prompts = llm::prompt_library::load(folders);
  if (!prompts.ok()) return prompts.error().with_context("llm.prompts_dir");
  AOPT_RETURN_IF_ERROR(prompts->check_complete());

  agent::llm_backend_options options;
  options.prompts = std::move(*prompts);
  options.hardware_text = nlohmann::json(*hw).dump(2);
  options.seed = static_cast<int64_t>(config.campaign.seed);
  options.latency_is_simulated = config.device.kind == config::device_kind::sim;
  return agent::llm_backend::make(std::move(shared), std::move(options));
}

}  // namespace aopt::runtime
