// call_port: the blocking way to make an LLM call, for code running in its own thread (policies
// in detached workers). Two implementations: the gateway itself (a direct call) and the
// campaign's gateway actor (actors/llm_gateway.hpp), which reaches the same gateway by message.
// Whichever is used, the gateway applies budget, cache, admission and accounting.
//
// Thread-safety: implementations may be called from several threads at once.
#pragma once

#include "llm/call_result.hpp"
#include "llm/chat_types.hpp"
#include "llm/token_ledger.hpp"

namespace aopt::llm {

class call_port {
 public:
  virtual ~call_port() = default;

  // Block until the call ended; every failure is a classified call_result.
  virtual call_result<chat_response> chat(call_context who, chat_request request) = 0;
  virtual call_result<embedding_response> embed(call_context who, embedding_request request) = 0;
};

}  // namespace aopt::llm
