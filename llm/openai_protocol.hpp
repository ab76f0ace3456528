// The OpenAI chat-completions and embeddings wire format: request bodies out, answers in, and
// the JSON form of answers kept in the response cache. No I/O, so all of it is unit-tested
// without a server.
//
// Answer classification: a body that is not the promised JSON is malformed_body; a choice
// without text is empty_choice; finish_reason "length" is truncated (and still reports the
// tokens billed for it).
//
// Persistent: the cache form (to_json/from_json of answers) is stored in llm_cache; keep old
// keys readable when changing it.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "llm/call_result.hpp"
#include "llm/chat_types.hpp"

namespace aopt::llm {

// REQUIRES: model, temperature and max_tokens are set (the client fills its defaults in).
// Keys are sorted (nlohmann's object order), so the dump is canonical and can key the cache.
nlohmann::json chat_request_body(const chat_request& request);

call_result<chat_response> parse_chat_answer(std::string_view body);

// REQUIRES: model is set.
nlohmann::json embedding_request_body(const embedding_request& request);

// `inputs`: how many vectors the answer must hold.
call_result<embedding_response> parse_embedding_answer(std::string_view body, size_t inputs);

// What an error answer says: its error.message when it has one, else the start of the body.
std::string error_detail(std::string_view body);

nlohmann::json to_json(const chat_response& response);
result<chat_response> chat_response_from_json(const nlohmann::json& j);
nlohmann::json to_json(const embedding_response& response);
result<embedding_response> embedding_response_from_json(const nlohmann::json& j);

}  // namespace aopt::llm
