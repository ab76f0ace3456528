#include "agent/llm_policies/llm_backend.hpp"

#include <sstream>
#include <utility>

#include <fmt/format.h>

namespace aopt::agent {
namespace {

// A spent budget ends the asking stage instead of costing it a failed step per call.
template <class T>
result<T> to_policy_result(llm::call_result<T> r) {
  if (r.ok()) return std::move(r).value();
  if (r.error().kind() == llm::error_kind::budget_exhausted)
    return failed_precondition(r.error().message());
  return r.error();
}

}  // namespace

std::shared_ptr<llm_backend> llm_backend::make(std::shared_ptr<llm_service> service,
                                               llm_backend_options options) {
  std::shared_ptr<llm_backend> backend(new llm_backend());
  backend->service_ = std::move(service);
  backend->prompts_ = std::move(options.prompts);
  backend->hardware_text_ = std::move(options.hardware_text);
  backend->seed_ = options.seed;
  backend->latency_is_simulated_ = options.latency_is_simulated;
  return backend;
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

}  // namespace aopt::agent
