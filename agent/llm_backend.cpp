#include "agent/llm_backend.hpp"

#include <cmath>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "agent/llm_store_cache.hpp"
#include "npu/hardware_profile.hpp"
#include "npu/sim/runtime/hw_profile.hpp"

namespace aopt::agent {
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

// A spent budget ends the asking stage instead of costing it a failed step per call.
template <class T>
result<T> to_policy_result(llm::call_result<T> r) {
  if (r.ok()) return std::move(r).value();
  if (r.kind() == llm::error_kind::budget_exhausted)
    return failed_precondition(r.error().message());
  return r.error();
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

llm_backend::~llm_backend() = default;

result<llm::chat_response> llm_backend::ask(const llm::call_context& who, const std::string& action,
                                            const llm::prompt_variables& values,
                                            uint64_t sample_index) {
  result<std::vector<llm::chat_message>> messages = prompts_.render(action, values);
  if (!messages.ok()) return messages.error();
  llm::chat_request request;
  request.messages = std::move(*messages);
  request.seed = seed_;
  request.sample_index = sample_index;
  std::shared_ptr<llm::call_port> via = route();
  return to_policy_result((via ? *via : *gateway_).chat(who, std::move(request)));
}

result<llm::embedding_response> llm_backend::embed(const llm::call_context& who,
                                                   std::vector<std::string> inputs) {
  llm::embedding_request request;
  request.inputs = std::move(inputs);
  std::shared_ptr<llm::call_port> via = route();
  return to_policy_result((via ? *via : *gateway_).embed(who, std::move(request)));
}

void llm_backend::route_through(std::shared_ptr<llm::call_port> port) {
  std::lock_guard<std::mutex> lock(route_mutex_);
  route_ = std::move(port);
}

std::shared_ptr<llm::call_port> llm_backend::route() const {
  std::lock_guard<std::mutex> lock(route_mutex_);
  return route_;
}

const std::string& llm_backend::model() const {
  return client_->options().model;
}

const std::string& llm_backend::embedding_model() const {
  return client_->options().embedding_model;
}

std::string llm_backend::usage_report() const {
  const llm::token_ledger ledger = gateway_->ledger();
  std::ostringstream out;
  auto line = [&](const std::string& who, const llm::ledger_entry& e) {
    out << fmt::format("{}: {} calls ({} from cache, {} failed), tokens used {}+{}, billed {}+{}",
                       who, e.calls, e.cache_hits, e.failures, e.used.prompt_tokens,
                       e.used.completion_tokens, e.billed.prompt_tokens,
                       e.billed.completion_tokens);
    if (!ledger.prices().empty()) out << fmt::format(", cost {:.4f}", ledger.cost(e));
    out << '\n';
  };
  for (const auto& [who, entry] : ledger.entries()) {
    line(who.campaign + "/" + who.op + "/" + who.role, entry);
  }
  line("total", ledger.total());
  return out.str();
}

result<std::shared_ptr<llm_backend>> make_llm_backend(const config::aopt_config& config,
                                                      storage::store* db) {
  if (config.llm.model.empty())
    return invalid_argument("llm.model is empty: an LLM policy needs the chat model to ask");

  result<sim::hw_profile> hw =
      npu::find_hardware_profile(config.device.profile, config::hardware_dir(config.device));
  if (!hw.ok()) return hw.error().with_context("device.profile");

  std::vector<std::filesystem::path> folders = {config::builtin_config_dir() / "prompts"};
  if (!config.llm.prompts_dir.empty()) folders.push_back(config::prompts_dir(config.llm));
  result<llm::prompt_library> prompts = llm::prompt_library::load(folders);
  if (!prompts.ok()) return prompts.error().with_context("llm.prompts_dir");
  AOPT_RETURN_IF_ERROR(prompts->check_complete());

  std::shared_ptr<llm_backend> backend(new llm_backend());
  backend->prompts_ = std::move(*prompts);
  backend->hardware_text_ = nlohmann::json(*hw).dump(2);
  backend->seed_ = static_cast<int64_t>(config.campaign.seed);
  backend->latency_is_simulated_ = config.device.kind == config::device_kind::sim;
  backend->runtime_ = std::make_unique<llm::http_runtime>(1);
  result<std::unique_ptr<llm::openai_client>> client =
      llm::openai_client::make(*backend->runtime_, client_options_from(config.llm));
  if (!client.ok()) return client.error().with_context("llm");
  backend->client_ = std::move(*client);
  if (db != nullptr) {
    backend->cache_ = std::make_unique<store_response_cache>(*db);
  } else {
    backend->cache_ = std::make_unique<llm::memory_response_cache>();
  }
  backend->gateway_ =
      std::make_unique<llm::gateway>(*backend->runtime_, *backend->client_, backend->cache_.get(),
                                     gateway_options_from(config.llm));
  return backend;
}

}  // namespace aopt::agent
