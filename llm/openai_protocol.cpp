#include "llm/openai_protocol.hpp"

#include <algorithm>

namespace aopt::llm {

namespace {

using nlohmann::json;

constexpr size_t snippet_chars = 200;

std::string snippet(std::string_view text) {
  std::string out(text.substr(0, snippet_chars));
  if (text.size() > snippet_chars) out += "...";
  return out;
}

std::string read_string(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

uint64_t read_count(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
}

// Reads {"prompt_tokens": n, "completion_tokens": m}; absent or odd fields count as 0, since
// some local servers omit usage entirely.
token_usage read_usage(const json& answer) {
  token_usage usage;
  auto it = answer.find("usage");
  if (it == answer.end() || !it->is_object()) return usage;
  usage.prompt_tokens = read_count(*it, "prompt_tokens");
  usage.completion_tokens = read_count(*it, "completion_tokens");
  return usage;
}

template <class T>
call_result<T> malformed(const std::string& detail) {
  return call_failure(error_kind::malformed_body, detail);
}

// A JSON object, or the malformed_body error saying why the body is none.
call_result<json> parse_object(std::string_view body) {
  json answer = json::parse(body, nullptr, false);
  if (answer.is_discarded()) return malformed<json>("answer is not JSON: " + snippet(body));
  if (!answer.is_object()) return malformed<json>("answer is not a JSON object: " + snippet(body));
  auto error = answer.find("error");
  if (error != answer.end() && !error->is_null())
    return malformed<json>("answer reports an error: " + error_detail(body));
  return answer;
}

}  // namespace

json chat_request_body(const chat_request& request) {
  json messages = json::array();
  for (const chat_message& m : request.messages)
    messages.push_back({{"role", m.role}, {"content", m.content}});
  json body = {
      {"model", request.model.value_or("")},
      {"messages", std::move(messages)},
      {"temperature", request.temperature.value_or(0.0)},
      {"max_tokens", request.max_tokens.value_or(0)},
      {"stream", false},
  };
  if (request.seed) body["seed"] = *request.seed;
  return body;
}

call_result<chat_response> parse_chat_answer(std::string_view body) {
  call_result<json> parsed = parse_object(body);
  if (!parsed.ok()) return parsed.error();
  const json& answer = *parsed;
  const token_usage usage = read_usage(answer);
  auto choices = answer.find("choices");
  if (choices == answer.end() || !choices->is_array())
    return malformed<chat_response>("answer has no 'choices' array: " + snippet(body));
  if (choices->empty())
    return call_failure(error_kind::empty_choice, "answer has no choices", usage);
  const json& choice = choices->front();
  if (!choice.is_object()) return malformed<chat_response>("choices[0] is not an object");
  chat_response response;
  response.finish_reason = read_string(choice, "finish_reason");
  response.model = read_string(answer, "model");
  response.usage = usage;
  if (response.finish_reason == "length")
    return call_failure(error_kind::truncated,
                        "answer cut off at max_tokens (finish_reason \"length\", " +
                            std::to_string(usage.completion_tokens) + " completion tokens)",
                        usage);
  auto message = choice.find("message");
  if (message == choice.end() || !message->is_object())
    return malformed<chat_response>("choices[0] has no 'message' object");
  auto content = message->find("content");
  if (content == message->end() || content->is_null())
    return call_failure(error_kind::empty_choice, "choices[0].message has no content", usage);
  if (!content->is_string())
    return malformed<chat_response>("choices[0].message.content is not a string");
  response.content = content->get<std::string>();
  if (response.content.empty())
    return call_failure(error_kind::empty_choice, "choices[0].message.content is empty", usage);
  return response;
}

json embedding_request_body(const embedding_request& request) {
  return {{"model", request.model.value_or("")}, {"input", request.inputs}};
}

call_result<embedding_response> parse_embedding_answer(std::string_view body, size_t inputs) {
  call_result<json> parsed = parse_object(body);
  if (!parsed.ok()) return parsed.error();
  const json& answer = *parsed;
  auto data = answer.find("data");
  if (data == answer.end() || !data->is_array())
    return malformed<embedding_response>("answer has no 'data' array: " + snippet(body));
  if (data->size() != inputs)
    return malformed<embedding_response>("answer has " + std::to_string(data->size()) +
                                         " embeddings for " + std::to_string(inputs) + " inputs");
  embedding_response response;
  response.model = read_string(answer, "model");
  response.usage = read_usage(answer);
  response.vectors.resize(inputs);
  std::vector<bool> seen(inputs, false);
  for (size_t i = 0; i < data->size(); ++i) {
    const json& item = (*data)[i];
    if (!item.is_object())
      return malformed<embedding_response>("data[" + std::to_string(i) + "] is not an object");
    size_t index = i;
    auto idx = item.find("index");
    if (idx != item.end() && idx->is_number_unsigned()) index = idx->get<size_t>();
    if (index >= inputs || seen[index])
      return malformed<embedding_response>("data[" + std::to_string(i) + "] has a bad index");
    seen[index] = true;
    auto vec = item.find("embedding");
    if (vec == item.end() || !vec->is_array() || vec->empty())
      return malformed<embedding_response>("data[" + std::to_string(i) +
                                           "] has no 'embedding' array");
    std::vector<float>& out = response.vectors[index];
    out.reserve(vec->size());
    for (const json& x : *vec) {
      if (!x.is_number())
        return malformed<embedding_response>("data[" + std::to_string(i) +
                                             "].embedding holds a non-number");
      out.push_back(x.get<float>());
    }
  }
  return response;
}

std::string error_detail(std::string_view body) {
  json answer = json::parse(body, nullptr, false);
  if (answer.is_object()) {
    auto error = answer.find("error");
    if (error != answer.end()) {
      if (error->is_string()) return error->get<std::string>();
      if (error->is_object()) {
        std::string message = read_string(*error, "message");
        if (!message.empty()) return message;
      }
    }
  }
  return snippet(body);
}

json to_json(const chat_response& response) {
  return {{"content", response.content},
          {"finish_reason", response.finish_reason},
          {"model", response.model},
          {"prompt_tokens", response.usage.prompt_tokens},
          {"completion_tokens", response.usage.completion_tokens}};
}

result<chat_response> chat_response_from_json(const json& j) {
  if (!j.is_object() || !j.contains("content") || !j["content"].is_string())
    return data_loss("cached chat answer: no 'content' string");
  chat_response response;
  response.content = j["content"].get<std::string>();
  response.finish_reason = read_string(j, "finish_reason");
  response.model = read_string(j, "model");
  response.usage.prompt_tokens = read_count(j, "prompt_tokens");
  response.usage.completion_tokens = read_count(j, "completion_tokens");
  return response;
}

json to_json(const embedding_response& response) {
  return {{"vectors", response.vectors},
          {"model", response.model},
          {"prompt_tokens", response.usage.prompt_tokens}};
}

result<embedding_response> embedding_response_from_json(const json& j) {
  if (!j.is_object() || !j.contains("vectors") || !j["vectors"].is_array())
    return data_loss("cached embedding answer: no 'vectors' array");
  embedding_response response;
  for (const json& v : j["vectors"]) {
    if (!v.is_array()) return data_loss("cached embedding answer: a vector is not an array");
    std::vector<float>& out = response.vectors.emplace_back();
    for (const json& x : v) {
      if (!x.is_number()) return data_loss("cached embedding answer: a non-number");
      out.push_back(x.get<float>());
    }
  }
  response.model = read_string(j, "model");
  response.usage.prompt_tokens = read_count(j, "prompt_tokens");
  return response;
}

}  // namespace aopt::llm
