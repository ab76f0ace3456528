#include <doctest/doctest.h>

#include "llm/openai_protocol.hpp"

namespace llm = aopt::llm;

TEST_SUITE("llm") {
  TEST_CASE(
      "chat_request_body carries model, messages and parameters, and the seed only when set") {
    llm::chat_request r;
    r.messages = {llm::system_message("s"), llm::user_message("u")};
    r.model = "m";
    r.temperature = 0.2;
    r.max_tokens = 64;
    nlohmann::json body = llm::chat_request_body(r);
    CHECK(body["model"] == "m");
    CHECK(body["temperature"] == 0.2);
    CHECK(body["max_tokens"] == 64);
    CHECK(body["stream"] == false);
    CHECK_FALSE(body.contains("seed"));
    CHECK(body["messages"][0] == nlohmann::json{{"role", "system"}, {"content", "s"}});
    r.seed = 9;
    CHECK(llm::chat_request_body(r)["seed"] == 9);
  }

  TEST_CASE("parse_chat_answer reads content, finish reason, model and usage") {
    auto r = llm::parse_chat_answer(R"({"model":"deepseek-chat","choices":[{"index":0,
      "message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
      "usage":{"prompt_tokens":11,"completion_tokens":2,"total_tokens":13}})");
    REQUIRE(r.ok());
    CHECK(r->content == "hi");
    CHECK(r->finish_reason == "stop");
    CHECK(r->model == "deepseek-chat");
    CHECK(r->usage == llm::token_usage{11, 2});

    auto no_usage = llm::parse_chat_answer(R"({"choices":[{"message":{"content":"x"}}]})");
    REQUIRE(no_usage.ok());
    CHECK(no_usage->usage.total() == 0);
  }

  TEST_CASE("parse_chat_answer classifies each kind of unusable answer") {
    auto kind_of = [](const char* body) { return llm::parse_chat_answer(body).error().kind(); };
    CHECK(kind_of("not json") == llm::error_kind::malformed_body);
    CHECK(kind_of("[1,2]") == llm::error_kind::malformed_body);
    CHECK(kind_of(R"({"object":"chat.completion"})") == llm::error_kind::malformed_body);
    CHECK(kind_of(R"({"error":{"message":"overloaded"}})") == llm::error_kind::malformed_body);
    CHECK(kind_of(R"({"choices":[]})") == llm::error_kind::empty_choice);
    CHECK(kind_of(R"({"choices":[{"message":{"content":null}}]})") ==
          llm::error_kind::empty_choice);
    CHECK(kind_of(R"({"choices":[{"message":{"content":""}}]})") == llm::error_kind::empty_choice);
    CHECK(kind_of(R"({"choices":[{"message":{"content":5}}]})") == llm::error_kind::malformed_body);
    auto cut = llm::parse_chat_answer(R"({"choices":[{"message":{"content":"int f("},
      "finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":4}})");
    CHECK(cut.error().kind() == llm::error_kind::truncated);
    CHECK(cut.error().billed() == llm::token_usage{3, 4});
    CHECK(cut.error().message().rfind("truncated: ", 0) == 0);
  }

  TEST_CASE("parse_embedding_answer orders vectors by index and checks their count") {
    auto r = llm::parse_embedding_answer(R"({"data":[{"index":1,"embedding":[0.5,0.5]},
      {"index":0,"embedding":[1,0]}],"model":"e","usage":{"prompt_tokens":4}})",
                                         2);
    REQUIRE(r.ok());
    CHECK(r->vectors[0] == std::vector<float>{1, 0});
    CHECK(r->vectors[1] == std::vector<float>{0.5f, 0.5f});
    CHECK(r->usage.prompt_tokens == 4);
    CHECK(llm::parse_embedding_answer(R"({"data":[{"embedding":[1]}]})", 2).error().kind() ==
          llm::error_kind::malformed_body);
    CHECK(llm::parse_embedding_answer(R"({"data":[{"embedding":["x"]}]})", 1).error().kind() ==
          llm::error_kind::malformed_body);
  }

  TEST_CASE("cached answers round-trip through their JSON form") {
    llm::chat_response chat;
    chat.content = "answer";
    chat.finish_reason = "stop";
    chat.model = "m";
    chat.usage = {7, 8};
    auto back = llm::chat_response_from_json(llm::to_json(chat));
    REQUIRE(back.ok());
    CHECK(back->content == "answer");
    CHECK(back->usage == llm::token_usage{7, 8});
    CHECK(llm::chat_response_from_json(nlohmann::json{{"content", 3}}).error().code() ==
          aopt::status_code::data_loss);

    llm::embedding_response e;
    e.vectors = {{1, 2}, {3, 4}};
    e.usage = {5, 0};
    auto e_back = llm::embedding_response_from_json(llm::to_json(e));
    REQUIRE(e_back.ok());
    CHECK(e_back->vectors == e.vectors);
    CHECK(e_back->usage.prompt_tokens == 5);
  }

  TEST_CASE("error_detail prefers the endpoint's error message") {
    CHECK(llm::error_detail(R"({"error":{"message":"quota exceeded","type":"x"}})") ==
          "quota exceeded");
    CHECK(llm::error_detail(R"({"error":"plain"})") == "plain");
    CHECK(llm::error_detail("<html>bad gateway</html>") == "<html>bad gateway</html>");
  }

  TEST_CASE("error kinds map to status codes and back from their names") {
    CHECK(llm::to_status_code(llm::error_kind::timeout) == aopt::status_code::deadline_exceeded);
    CHECK(llm::to_status_code(llm::error_kind::budget_exhausted) ==
          aopt::status_code::resource_exhausted);
    CHECK(llm::to_status_code(llm::error_kind::connect_error) == aopt::status_code::unavailable);
    for (auto kind : {llm::error_kind::http_429, llm::error_kind::truncated,
                      llm::error_kind::cancelled, llm::error_kind::empty_choice})
      CHECK(llm::parse_error_kind(llm::to_string(kind)) == kind);
    CHECK_FALSE(llm::parse_error_kind("http_418"));
  }

}  // TEST_SUITE
