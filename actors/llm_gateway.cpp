#include "actors/llm_gateway.hpp"

#include <map>
#include <optional>

#include "actors/messages.hpp"

namespace aopt::actors {
namespace {

struct llm_gateway_state {
  static inline const char* name = "llm_gateway";
  uint64_t next_call = 0;
  // Requests whose gateway call has not ended yet, by call id.
  std::map<uint64_t, caf::typed_response_promise<llm_chat_outcome>> chats;
  std::map<uint64_t, caf::typed_response_promise<llm_embed_outcome>> embeds;
};

using gateway_self = llm_gateway_actor::stateful_pointer<llm_gateway_state>;

// Registers the current request under a new id and starts the call; the gateway's callback (on
// an HTTP runtime thread) sends the outcome back to this actor, which answers in its own turn:
// a response promise belongs to its actor and is not delivered from a foreign thread.
template <class Outcome, class Response, class Start>
caf::result<Outcome> open_call(gateway_self self,
                               std::map<uint64_t, caf::typed_response_promise<Outcome>>& open,
                               Start start) {
  const uint64_t id = self->state.next_call++;
  auto promise = self->make_response_promise<Outcome>();
  open.emplace(id, promise);
  // Weak, so that a call the gateway cancels after the actor (and its system) is gone has no
  // one to tell instead of keeping a dead actor's mailbox alive.
  caf::weak_actor_ptr me{self->ctrl()};
  start([me, id](llm::call_result<Response> r) {
    if (caf::strong_actor_ptr alive = me.lock())
      caf::anon_send(caf::actor_cast<llm_gateway_actor>(alive), llm_done_atom_v, id,
                     make_local(std::move(r)));
  });
  return promise;
}

template <class Outcome>
void close_call(std::map<uint64_t, caf::typed_response_promise<Outcome>>& open, uint64_t id,
                const Outcome& outcome) {
  auto it = open.find(id);
  if (it == open.end()) return;
  it->second.deliver(outcome);
  open.erase(it);
}

template <class Outcome>
void fail_open(std::map<uint64_t, caf::typed_response_promise<Outcome>>& open,
               const caf::error& reason) {
  for (auto& [id, promise] : open) promise.deliver(reason);
  open.clear();
}

llm_gateway_actor::behavior_type llm_gateway(gateway_self self, llm::gateway* gateway) {
  self->set_exit_handler([self](const caf::exit_msg& msg) {
    fail_open(self->state.chats, msg.reason);
    fail_open(self->state.embeds, msg.reason);
    self->quit(msg.reason);
  });
  return {
      [=](chat_atom, const llm_chat_job& job) -> caf::result<llm_chat_outcome> {
        return open_call<llm_chat_outcome, llm::chat_response>(
            self, self->state.chats, [&](llm::chat_callback done) {
              gateway->async_chat(job.value->who, job.value->request, std::move(done));
            });
      },
      [=](embed_atom, const llm_embed_job& job) -> caf::result<llm_embed_outcome> {
        return open_call<llm_embed_outcome, llm::embedding_response>(
            self, self->state.embeds, [&](llm::embedding_callback done) {
              gateway->async_embed(job.value->who, job.value->request, std::move(done));
            });
      },
      [=](llm_done_atom, uint64_t id, const llm_chat_outcome& outcome) {
        close_call(self->state.chats, id, outcome);
      },
      [=](llm_done_atom, uint64_t id, const llm_embed_outcome& outcome) {
        close_call(self->state.embeds, id, outcome);
      },
      [=](usage_atom) -> caf::result<llm_usage_report> {
        return make_local(llm_usage{gateway->ledger(), gateway->stats()});
      },
  };
}

// Waits in this thread for the actor's answer to `args`.
template <class Response, class Outcome, class... Ts>
llm::call_result<Response> request_call(caf::actor_system& sys, const llm_gateway_actor& gateway,
                                        Ts&&... args) {
  std::optional<llm::call_result<Response>> out;
  caf::scoped_actor self{sys};
  self->request(gateway, caf::infinite, std::forward<Ts>(args)...)
      .receive([&](const Outcome& outcome) { out.emplace(*outcome.value); },
               [&](const caf::error& e) {
                 const std::string why = "the LLM gateway actor did not answer: " + sys.render(e);
                 out.emplace(llm::call_failure(llm::error_kind::cancelled, why));
               });
  return std::move(*out);
}

}  // namespace

llm_gateway_actor spawn_llm_gateway(caf::actor_system& sys, llm::gateway& gateway) {
  return sys.spawn(llm_gateway, &gateway);
}

llm::call_result<llm::chat_response> llm_gateway_port::chat(llm::call_context who,
                                                            llm::chat_request request) {
  return request_call<llm::chat_response, llm_chat_outcome>(
      sys_, gateway_, chat_atom_v, make_local(llm_chat_call{std::move(who), std::move(request)}));
}

llm::call_result<llm::embedding_response> llm_gateway_port::embed(llm::call_context who,
                                                                  llm::embedding_request request) {
  return request_call<llm::embedding_response, llm_embed_outcome>(
      sys_, gateway_, embed_atom_v, make_local(llm_embed_call{std::move(who), std::move(request)}));
}

}  // namespace aopt::actors
