// LLM gateway actor: the campaign's one door to the LLM (docs/design.md §3, "all LLM traffic goes
// through one gateway"). A thin adapter over llm::gateway, which does the work: the budget cap
// (a spent budget refuses new calls without sending them), the response cache, bounded
// concurrency and requests per minute, token accounting per (campaign, operator, role).
//
//   (chat_atom, llm_chat_job)   -> llm_chat_outcome   a failed call is a classified value
//   (embed_atom, llm_embed_job) -> llm_embed_outcome
//   (usage_atom)                -> llm_usage_report   the ledger and counters right now
//
// The actor never blocks: it hands each call to the gateway and answers when the gateway's
// callback sends the outcome back to it. An exit message fails the calls still open (the
// requesters get an error) before the actor quits, so nobody waits for an answer that will not
// come.
//
// llm_gateway_port is the blocking side of the same protocol, for code in its own thread (the
// LLM policies in detached workers, through agent::llm_backend::route_through).
#pragma once

#include <caf/all.hpp>

#include "actors/messages.hpp"
#include "llm/call_port.hpp"
#include "llm/gateway.hpp"

namespace aopt::actors {

// (llm_done_atom, call id, outcome) is the gateway's callback telling the actor itself.
using llm_gateway_actor =
    caf::typed_actor<caf::replies_to<chat_atom, llm_chat_job>::with<llm_chat_outcome>,
                     caf::replies_to<embed_atom, llm_embed_job>::with<llm_embed_outcome>,
                     caf::replies_to<usage_atom>::with<llm_usage_report>,
                     caf::reacts_to<llm_done_atom, uint64_t, llm_chat_outcome>,
                     caf::reacts_to<llm_done_atom, uint64_t, llm_embed_outcome>>;

// `gateway` must outlive the actor.
llm_gateway_actor spawn_llm_gateway(caf::actor_system& sys, llm::gateway& gateway);

// Each call is one request to the gateway actor, waited for in the calling thread. REQUIRES:
// not called from a scheduled (event-based) actor, which must not block; the actor system must
// outlive the port's calls. An error answer (the actor is gone) is error_kind::cancelled.
class llm_gateway_port final : public llm::call_port {
 public:
  llm_gateway_port(caf::actor_system& sys, llm_gateway_actor gateway)
      : sys_(sys), gateway_(std::move(gateway)) {}

  llm::call_result<llm::chat_response> chat(llm::call_context who,
                                            llm::chat_request request) override;
  llm::call_result<llm::embedding_response> embed(llm::call_context who,
                                                  llm::embedding_request request) override;

 private:
  caf::actor_system& sys_;
  llm_gateway_actor gateway_;
};

}  // namespace aopt::actors
