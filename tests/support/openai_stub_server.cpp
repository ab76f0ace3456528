#include "openai_stub_server.hpp"

#include <cctype>
#include <cmath>
#include <deque>
#include <functional>
#include <sstream>
#include <thread>
#include <type_traits>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace aopt::test {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

stub_action reply(std::string content) {
  stub_action a;
  a.content = std::move(content);
  return a;
}

stub_action reply(std::string content, uint64_t prompt_tokens, uint64_t completion_tokens) {
  stub_action a = reply(std::move(content));
  a.usage = stub_usage{prompt_tokens, completion_tokens};
  return a;
}

stub_action truncated(std::string partial, uint64_t prompt_tokens, uint64_t completion_tokens) {
  stub_action a = reply(std::move(partial), prompt_tokens, completion_tokens);
  a.finish_reason = "length";
  return a;
}

stub_action embeddings(std::vector<std::vector<float>> vectors, uint64_t prompt_tokens) {
  stub_action a;
  a.vectors = std::move(vectors);
  a.usage = stub_usage{prompt_tokens, 0};
  return a;
}

stub_action fault_status(unsigned status, std::string body) {
  stub_action a;
  a.what = stub_action::kind::http_error;
  a.status = status;
  a.body = body.empty() ? R"({"error":{"message":"stub fault )" + std::to_string(status) + "\"}}"
                        : std::move(body);
  return a;
}

stub_action fault_429(unsigned retry_after_s) {
  stub_action a = fault_status(429, R"({"error":{"message":"rate limited"}})");
  a.retry_after_s = retry_after_s;
  return a;
}

stub_action fault_500() {
  return fault_status(500, R"({"error":{"message":"internal"}})");
}

stub_action stall() {
  stub_action a;
  a.what = stub_action::kind::stall;
  return a;
}

stub_action held_reply(std::string content) {
  stub_action a = reply(std::move(content));
  a.what = stub_action::kind::held;
  return a;
}

stub_action drop_connection() {
  stub_action a;
  a.what = stub_action::kind::drop;
  return a;
}

stub_action malformed_body() {
  stub_action a;
  a.what = stub_action::kind::raw_body;
  a.body = "{\"choices\": [ this is not JSON";
  return a;
}

stub_action empty_choices() {
  stub_action a;
  a.what = stub_action::kind::raw_body;
  a.body = R"({"id":"stub","object":"chat.completion","model":"stub","choices":[]})";
  return a;
}

namespace {

uint64_t count_words(const std::string& text) {
  std::istringstream in(text);
  uint64_t n = 0;
  for (std::string word; in >> word;) ++n;
  return n;
}

// Hashed bag of words: lexical overlap becomes cosine similarity.
std::vector<float> bag_of_words(const std::string& text) {
  constexpr size_t dims = 64;
  std::vector<float> v(dims, 0.0f);
  std::string word;
  auto flush = [&] {
    if (word.empty()) return;
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : word) h = (h ^ c) * 1099511628211ull;
    v[h % dims] += 1.0f;
    word.clear();
  };
  for (unsigned char c : text) {
    if (std::isalnum(c))
      word.push_back(static_cast<char>(std::tolower(c)));
    else
      flush();
  }
  flush();
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  if (norm == 0) {
    v[0] = 1.0f;
    return v;
  }
  for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
  return v;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

struct openai_stub_server::impl {
  // What a session does with one request.
  struct decision {
    stub_action::kind what = stub_action::kind::reply;
    http::response<http::string_body> response;
  };

  explicit impl(std::optional<stub_tls_identity> identity) {
    if (identity) {
      tls = std::make_unique<asio::ssl::context>(asio::ssl::context::tls_server);
      tls->use_certificate_chain(asio::buffer(identity->certificate_pem));
      tls->use_private_key(asio::buffer(identity->private_key_pem), asio::ssl::context::pem);
    }
    const tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
    acceptor.open(endpoint.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(endpoint);
    acceptor.listen();
    port = acceptor.local_endpoint().port();
    accept();
    thread = std::thread([this] { io.run(); });
  }

  ~impl() {
    io.stop();
    thread.join();
    std::lock_guard<std::mutex> lock(mutex);
    parked.clear();
    held.clear();
  }

  void accept();

  decision handle(const http::request<http::string_body>& request) {
    stub_request seen;
    seen.method = std::string(request.method_string());
    seen.target = std::string(request.target());
    for (const auto& field : request) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      seen.headers[name] = std::string(field.value());
    }
    seen.body = nlohmann::json::parse(request.body(), nullptr, false);
    if (seen.body.is_discarded()) seen.body = nullptr;
    seen.received_at = std::chrono::steady_clock::now();

    std::lock_guard<std::mutex> lock(mutex);
    decision d;
    const bool chat =
        request.method() == http::verb::post && ends_with(seen.target, "/chat/completions");
    const bool embed =
        request.method() == http::verb::post && ends_with(seen.target, "/embeddings");
    std::optional<stub_action> action;
    if (chat) {
      ++chat_count;
      if (!chat_script.empty()) {
        action = std::move(chat_script.front());
        chat_script.pop_front();
      } else if (fallback) {
        action = *fallback;
      } else {
        action = fault_status(
            400, R"({"error":{"message":"openai_stub_server: no scripted answer left"}})");
      }
    } else if (embed) {
      ++embedding_count;
      if (!embedding_script.empty()) {
        action = std::move(embedding_script.front());
        embedding_script.pop_front();
      } else {
        action = stub_action();
      }
    } else {
      action = fault_status(404, R"({"error":{"message":"openai_stub_server: no such route"}})");
    }
    d.what = action->what;
    d.response = respond(*action, seen, chat);
    d.response.keep_alive(request.keep_alive());
    log.push_back(std::move(seen));
    arrived.notify_all();
    return d;
  }

  // REQUIRES: mutex held.
  http::response<http::string_body> respond(const stub_action& action, const stub_request& seen,
                                            bool chat) {
    http::response<http::string_body> res;
    res.version(11);
    res.set(http::field::server, "openai_stub_server");
    res.set(http::field::content_type, "application/json");
    const std::string model =
        seen.body.is_object() && seen.body.contains("model") && seen.body["model"].is_string()
            ? seen.body["model"].get<std::string>()
            : "stub";
    switch (action.what) {
      case stub_action::kind::http_error:
        res.result(action.status);
        if (action.retry_after_s)
          res.set(http::field::retry_after, std::to_string(*action.retry_after_s));
        res.body() = action.body;
        break;
      case stub_action::kind::raw_body:
        res.result(http::status::ok);
        res.body() = action.body;
        break;
      case stub_action::kind::stall:
      case stub_action::kind::drop:
        break;
      case stub_action::kind::reply:
      case stub_action::kind::held:
        res.result(http::status::ok);
        res.body() = chat ? chat_body(action, seen, model) : embedding_body(action, seen, model);
        break;
    }
    res.prepare_payload();
    return res;
  }

  std::string chat_body(const stub_action& action, const stub_request& seen,
                        const std::string& model) {
    stub_usage usage;
    if (action.usage) {
      usage = *action.usage;
    } else {
      if (seen.body.is_object() && seen.body.contains("messages") &&
          seen.body["messages"].is_array())
        for (const auto& m : seen.body["messages"])
          if (m.is_object() && m.contains("content") && m["content"].is_string())
            usage.prompt_tokens += count_words(m["content"].get<std::string>());
      usage.completion_tokens = std::max<uint64_t>(1, count_words(action.content));
    }
    reported.prompt_tokens += usage.prompt_tokens;
    reported.completion_tokens += usage.completion_tokens;
    nlohmann::json body = {
        {"id", "chatcmpl-stub-" + std::to_string(chat_count)},
        {"object", "chat.completion"},
        {"created", 0},
        {"model", model},
        {"choices",
         {{{"index", 0},
           {"message", {{"role", "assistant"}, {"content", action.content}}},
           {"finish_reason", action.finish_reason}}}},
        {"usage",
         {{"prompt_tokens", usage.prompt_tokens},
          {"completion_tokens", usage.completion_tokens},
          {"total_tokens", usage.prompt_tokens + usage.completion_tokens}}},
    };
    return body.dump();
  }

  std::string embedding_body(const stub_action& action, const stub_request& seen,
                             const std::string& model) {
    std::vector<std::string> inputs;
    if (seen.body.is_object() && seen.body.contains("input")) {
      const auto& input = seen.body["input"];
      if (input.is_string()) inputs.push_back(input.get<std::string>());
      if (input.is_array())
        for (const auto& x : input)
          if (x.is_string()) inputs.push_back(x.get<std::string>());
    }
    std::vector<std::vector<float>> vectors = action.vectors;
    uint64_t prompt_tokens = action.usage ? action.usage->prompt_tokens : 0;
    if (vectors.empty()) {
      for (const std::string& text : inputs) {
        vectors.push_back(bag_of_words(text));
        if (!action.usage) prompt_tokens += count_words(text);
      }
    }
    reported.prompt_tokens += prompt_tokens;
    nlohmann::json data = nlohmann::json::array();
    for (size_t i = 0; i < vectors.size(); ++i)
      data.push_back({{"object", "embedding"}, {"index", i}, {"embedding", vectors[i]}});
    return nlohmann::json{
        {"object", "list"},
        {"data", data},
        {"model", model},
        {"usage", {{"prompt_tokens", prompt_tokens}, {"total_tokens", prompt_tokens}}}}
        .dump();
  }

  void park(std::shared_ptr<void> session) {
    std::lock_guard<std::mutex> lock(mutex);
    parked.push_back(std::move(session));
  }

  std::unique_ptr<asio::ssl::context> tls;  // set iff HTTPS; outlives every session
  asio::io_context io;
  tcp::acceptor acceptor{io};
  uint16_t port = 0;
  std::thread thread;

  // State below is protected by mutex.
  mutable std::mutex mutex;
  mutable std::condition_variable arrived;
  std::deque<stub_action> chat_script;
  std::deque<stub_action> embedding_script;
  std::optional<stub_action> fallback;
  std::vector<stub_request> log;
  size_t chat_count = 0;
  size_t embedding_count = 0;
  stub_usage reported;
  std::vector<std::shared_ptr<void>> parked;  // stalled sessions, kept open until shutdown
  std::vector<std::function<void()>> held;    // sends the answer of a held request
  bool released = false;                      // held_reply answers at once
};

namespace {

using tls_stream = beast::ssl_stream<beast::tcp_stream>;

template <class Stream>
class session : public std::enable_shared_from_this<session<Stream>> {
 public:
  static constexpr bool uses_tls = std::is_same_v<Stream, tls_stream>;

  session(openai_stub_server::impl& server, tcp::socket socket)
      : server_(server), stream_(make_stream(server, std::move(socket))) {}

  void start() {
    if constexpr (uses_tls) {
      stream_.async_handshake(asio::ssl::stream_base::server,
                              [self = this->shared_from_this()](error_code ec) {
                                if (!ec) self->read();
                              });
    } else {
      read();
    }
  }

 private:
  static Stream make_stream(openai_stub_server::impl& server, tcp::socket socket) {
    if constexpr (uses_tls)
      return Stream(std::move(socket), *server.tls);
    else
      return Stream(std::move(socket));
  }

  void read() {
    request_ = {};
    http::async_read(stream_, buffer_, request_,
                     [self = this->shared_from_this()](error_code ec, std::size_t) {
                       if (!ec) self->answer();
                     });
  }

  void answer() {
    openai_stub_server::impl::decision d = server_.handle(request_);
    if (d.what == stub_action::kind::stall) return server_.park(this->shared_from_this());
    if (d.what == stub_action::kind::held) {
      response_ = std::move(d.response);
      std::lock_guard<std::mutex> lock(server_.mutex);
      if (!server_.released) {
        server_.held.push_back([self = this->shared_from_this()] { self->write(); });
        return;
      }
      return write();
    }
    if (d.what == stub_action::kind::drop) {
      beast::get_lowest_layer(stream_).close();
      return;
    }
    response_ = std::move(d.response);
    write();
  }

  void write() {
    http::async_write(stream_, response_,
                      [self = this->shared_from_this()](error_code ec, std::size_t) {
                        if (ec) return;
                        if (self->response_.keep_alive())
                          self->read();
                        else
                          beast::get_lowest_layer(self->stream_).close();
                      });
  }

  openai_stub_server::impl& server_;
  Stream stream_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  http::response<http::string_body> response_;
};

}  // namespace

void openai_stub_server::impl::accept() {
  acceptor.async_accept([this](error_code ec, tcp::socket socket) {
    if (ec) return;
    if (tls)
      std::make_shared<session<tls_stream>>(*this, std::move(socket))->start();
    else
      std::make_shared<session<beast::tcp_stream>>(*this, std::move(socket))->start();
    accept();
  });
}

openai_stub_server::openai_stub_server() : impl_(std::make_unique<impl>(std::nullopt)) {}

openai_stub_server::openai_stub_server(stub_tls_identity tls)
    : impl_(std::make_unique<impl>(std::move(tls))) {}

openai_stub_server::~openai_stub_server() = default;

void openai_stub_server::script(std::vector<stub_action> actions) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  for (stub_action& a : actions) impl_->chat_script.push_back(std::move(a));
}

void openai_stub_server::script_embeddings(std::vector<stub_action> actions) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  for (stub_action& a : actions) impl_->embedding_script.push_back(std::move(a));
}

void openai_stub_server::fallback(stub_action action) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->fallback = std::move(action);
}

std::string openai_stub_server::base_url() const {
  return std::string(impl_->tls ? "https" : "http") +
         "://127.0.0.1:" + std::to_string(impl_->port) + "/v1";
}

uint16_t openai_stub_server::port() const {
  return impl_->port;
}

size_t openai_stub_server::requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->log.size();
}

size_t openai_stub_server::chat_requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->chat_count;
}

size_t openai_stub_server::embedding_requests() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->embedding_count;
}

size_t openai_stub_server::scripted_left() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->chat_script.size();
}

stub_usage openai_stub_server::reported_usage() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->reported;
}

std::vector<stub_request> openai_stub_server::received() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->log;
}

void openai_stub_server::release_held() {
  std::vector<std::function<void()>> answers;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->released = true;
    answers.swap(impl_->held);
  }
  // Sessions are driven by the server's thread only.
  asio::post(impl_->io, [answers = std::move(answers)] {
    for (const auto& answer : answers) answer();
  });
}

size_t openai_stub_server::held() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->held.size();
}

bool openai_stub_server::wait_for_requests(size_t n, std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->arrived.wait_for(lock, timeout, [&] { return impl_->log.size() >= n; });
}

}  // namespace aopt::test
