#include "agent/llm_policies/llm_backend.hpp"

#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "npu/hardware_profile.hpp"
#include "npu/sim/runtime/hw_profile.hpp"

namespace aopt::agent {
namespace {

// A spent budget ends the asking stage instead of costing it a failed step per call.
template <class T>
result<T> to_policy_result(llm::call_result<T> r) {
  if (r.ok()) return std::move(r).value();
  if (r.kind() == llm::error_kind::budget_exhausted)
    return failed_precondition(r.error().message());
  return r.error();
}

}  // namespace

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
  return to_policy_result((via ? *via : service_->gateway()).chat(who, std::move(request)));
}

result<llm::embedding_response> llm_backend::embed(const llm::call_context& who,
                                                   std::vector<std::string> inputs) {
  llm::embedding_request request;
  request.inputs = std::move(inputs);
  std::shared_ptr<llm::call_port> via = route();
  return to_policy_result((via ? *via : service_->gateway()).embed(who, std::move(request)));
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
  return service_->client_options().model;
}

const std::string& llm_backend::embedding_model() const {
  return service_->client_options().embedding_model;
}

std::string llm_backend::usage_report() const {
  const llm::token_ledger ledger = service_->gateway().ledger();
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
                                                      storage::store* db,
                                                      std::shared_ptr<llm_service> shared) {
  if (!shared) {
    result<std::shared_ptr<llm_service>> own = llm_service::make(config.llm, db);
    if (!own.ok()) return own.error();
    shared = std::move(*own);
  }

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
  backend->service_ = std::move(shared);
  return backend;
}

}  // namespace aopt::agent
