// Seeded generator of hostile inputs for the daemon's fuzz test (tests/server) and its longer run
// (bench/fuzz_daemon): raw HTTP requests mutated from valid ones or made of garbage, and op.json
// texts mutated from a real one (bytes flipped, values swapped for zeros, negatives, huge
// numbers, strings that are not UTF-8, duplicated tensors, missing or unknown keys). The same
// seed gives the same sequence, so a crash found is a crash reproduced.
//
// Header-only so the bench program can use it without the test support library.
//
// Thread-safety: one owner.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sys/socket.h>
#include <sys/time.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>

namespace aopt::testing {

// What a server answered to one raw request.
struct raw_answer {
  bool connected = false;
  int status = 0;  // 0: closed without a status line
  std::string body;
};

// Sends `bytes` to 127.0.0.1:`port`, half-closes, and reads until the server closes or
// `timeout_s` pass without data.
inline raw_answer raw_exchange(uint16_t port, const std::string& bytes, int timeout_s = 5) {
  namespace net = boost::asio;
  net::io_context ioc;
  net::ip::tcp::socket socket(ioc);
  boost::system::error_code ec;
  socket.connect({net::ip::make_address("127.0.0.1"), port}, ec);
  raw_answer a;
  if (ec) return a;
  a.connected = true;
  timeval limit{timeout_s, 0};
  ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  net::write(socket, net::buffer(bytes), ec);
  socket.shutdown(net::ip::tcp::socket::shutdown_send, ec);
  std::string text;
  char buf[8192];
  for (;;) {
    const size_t n = socket.read_some(net::buffer(buf), ec);
    if (ec) break;
    text.append(buf, n);
  }
  if (text.rfind("HTTP/1.1 ", 0) == 0 && text.size() >= 12) {
    a.status = std::atoi(text.substr(9, 3).c_str());
  }
  if (const size_t end = text.find("\r\n\r\n"); end != std::string::npos) {
    // The first answer's body only: a request duplicated by a mutation gets two answers.
    size_t length = std::string::npos;
    const std::string head = text.substr(0, end);
    if (const size_t at = head.find("Content-Length: "); at != std::string::npos) {
      length = std::strtoull(head.c_str() + at + 16, nullptr, 10);
    }
    a.body = text.substr(end + 4, length);
  }
  return a;
}

class request_fuzzer {
 public:
  // `templates`: valid raw requests to mutate. `op_json`: a valid op.json to mutate.
  request_fuzzer(uint64_t seed, std::vector<std::string> templates, nlohmann::json op_json)
      : rng_(seed), templates_(std::move(templates)), op_json_(std::move(op_json)) {}

  // One raw HTTP request: usually a mutated template, sometimes garbage.
  std::string next_request() {
    const int kind = pick(10);
    if (kind == 0) return garbage(1 + pick(512));
    std::string r = templates_[pick(templates_.size())];
    const int rounds = 1 + pick(4);
    for (int i = 0; i < rounds; ++i) r = mutate_bytes(std::move(r));
    return r;
  }

  // One op.json text: structure-level mutations, then sometimes byte-level ones.
  std::string next_op_json() {
    nlohmann::json j = op_json_;
    const int rounds = 1 + pick(3);
    std::vector<std::string> raw_strings;  // replacements that must stay raw bytes
    for (int i = 0; i < rounds; ++i) mutate_value(j, raw_strings);
    std::string text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    for (size_t i = 0; i < raw_strings.size(); ++i) {
      // Placeholders become bytes that are not UTF-8 inside the JSON string.
      const std::string marker = placeholder(i);
      for (size_t at; (at = text.find(marker)) != std::string::npos;) {
        text.replace(at, marker.size(), raw_strings[i]);
      }
    }
    if (pick(4) == 0) text = mutate_bytes(std::move(text));
    return text;
  }

  // A request body `body` for `method target`, with a Content-Length that matches it.
  static std::string request(const std::string& method, const std::string& target,
                             const std::string& body, const std::string& token) {
    std::string r = method + " " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    if (!token.empty()) r += "Authorization: Bearer " + token + "\r\n";
    if (!body.empty()) r += "Content-Type: application/json\r\n";
    r += "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
    return r + body;
  }

  static std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  // The body of POST /api/v1/operators uploading the package in `pkg` (add_custom's layout) with
  // its op.json replaced by `op_json`, spliced in as text so that bytes that are not UTF-8 reach
  // the server as such.
  static std::string upload_body(const std::filesystem::path& pkg, const std::string& op_json) {
    const std::string name = pkg.filename().string();
    nlohmann::json files = {
        {"op.json", "OPJSON"},
        {"reference.cpp", read_text(pkg / "reference.cpp")},
        {"op_host/" + name + ".cpp", read_text(pkg / "op_host" / (name + ".cpp"))},
        {"op_host/" + name + "_tiling.h", read_text(pkg / "op_host" / (name + "_tiling.h"))},
        {"op_kernel/" + name + ".cpp", read_text(pkg / "op_kernel" / (name + ".cpp"))}};
    std::string body = nlohmann::json{{"files", files}}.dump();
    std::string quoted = op_json;
    for (size_t at = 0; (at = quoted.find_first_of("\"\\", at)) != std::string::npos; at += 2) {
      quoted.insert(at, "\\");
    }
    body.replace(body.find("\"OPJSON\""), 8, "\"" + quoted + "\"");
    return body;
  }

  // Valid requests over every route of the API (no event stream, which would not end), to
  // mutate. Campaign requests name operators that do not exist, so none starts.
  static std::vector<std::string> api_templates(const std::filesystem::path& pkg,
                                                const std::string& token) {
    return {
        request("GET", "/healthz", "", ""),
        request("GET", "/metrics", "", token),
        request("GET", "/api/v1/campaigns", "", token),
        request("GET", "/api/v1/campaigns/c-1", "", token),
        request("GET", "/api/v1/campaigns/c-1/operators/add_custom", "", token),
        request("POST", "/api/v1/campaigns/c-1/pause", "", token),
        request("GET", "/api/v1/bank?q=double%20buffer&limit=5", "", token),
        request("GET", "/api/v1/bank/t-1", "", token),
        request("GET", "/index.html", "", ""),
        request("POST", "/api/v1/campaigns",
                R"({"operators":["/nonexistent/add_custom"],"budget":3,"seed":1,)"
                R"("set":["campaign.rounds=1"],"campaign":"fz"})",
                token),
        request("POST", "/api/v1/campaigns", R"({"uploads":["u-0123456789abcdef"]})", token),
        request("POST", "/api/v1/operators", upload_body(pkg, read_text(pkg / "op.json")), token),
    };
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng_); }

  static std::string placeholder(size_t i) { return "@@RAW" + std::to_string(i) + "@@"; }

  std::string garbage(size_t n) {
    std::string s(n, '\0');
    for (char& c : s) c = static_cast<char>(pick(256));
    return s;
  }

  // Pieces that break parsers: invalid UTF-8, escapes, traversal, separators, long runs.
  std::string nasty() {
    static const std::vector<std::string> pieces = {"\xff",
                                                    "\xfe\xff",
                                                    "%ff",
                                                    "%c3",
                                                    "%00",
                                                    "%2e%2e",
                                                    "../",
                                                    "\r\n",
                                                    std::string(1, '\0'),
                                                    "\"",
                                                    "\\",
                                                    "{",
                                                    "]",
                                                    "-1",
                                                    "1e999",
                                                    "%",
                                                    "\xc0\xaf",
                                                    "\xed\xa0\x80",
                                                    "?",
                                                    "&&=",
                                                    "\t",
                                                    "/",
                                                    "99999999999999999999",
                                                    "\xe2\x82",
                                                    "null",
                                                    "[[[[",
                                                    "#",
                                                    ";",
                                                    " "};
    if (pick(8) == 0) return std::string(1 + pick(3000), "aZ\xff/"[pick(4)]);
    return pieces[pick(pieces.size())];
  }

  std::string mutate_bytes(std::string s) {
    if (s.empty()) return nasty();
    const size_t at = pick(s.size() + 1);
    switch (pick(6)) {
      case 0:  // flip a byte
        if (at < s.size()) s[at] = static_cast<char>(s[at] ^ (1 << pick(8)));
        break;
      case 1:  // insert a nasty piece
        s.insert(at, nasty());
        break;
      case 2:  // delete a range
        if (at < s.size()) s.erase(at, 1 + pick(16));
        break;
      case 3:  // duplicate a range
        if (at < s.size()) s.insert(at, s.substr(at, 1 + pick(64)));
        break;
      case 4:  // replace a byte with a random one
        if (at < s.size()) s[at] = static_cast<char>(pick(256));
        break;
      default:  // cut the request short
        s.resize(at);
        break;
    }
    return s;
  }

  nlohmann::json odd_value(std::vector<std::string>& raw_strings) {
    switch (pick(12)) {
      case 0:
        return 0;
      case 1:
        return -1;
      case 2:
        return 1e308;
      case 3:
        return int64_t{1} << 62;
      case 4:
        return "";
      case 5: {
        raw_strings.push_back(pick(2) ? "\xff\xfe" : "a\xc3");
        return placeholder(raw_strings.size() - 1);
      }
      case 6:
        return nullptr;
      case 7:
        return nlohmann::json::array({nlohmann::json::array()});
      case 8:
        return nlohmann::json::object({{"x", 1}});
      case 9:
        return std::string(1 + pick(5000), 'x');
      case 10:
        return "../../../etc/passwd";
      default:
        return true;
    }
  }

  // Replaces, removes, duplicates or adds one value somewhere in `j`.
  void mutate_value(nlohmann::json& j, std::vector<std::string>& raw_strings) {
    nlohmann::json* node = &j;
    // Walk down a few levels at random.
    for (int depth = 0;
         depth < 4 && (node->is_object() || node->is_array()) && !node->empty() && pick(3) != 0;
         ++depth) {
      if (node->is_array()) {
        node = &(*node)[pick(node->size())];
      } else {
        auto it = node->begin();
        std::advance(it, static_cast<long>(pick(node->size())));
        node = &it.value();
      }
    }
    const int action = static_cast<int>(pick(4));
    if (action == 0 && node->is_array() && !node->empty()) {
      node->push_back((*node)[pick(node->size())]);  // duplicate an element (same names)
    } else if (action == 1 && node->is_object() && !node->empty()) {
      auto it = node->begin();
      std::advance(it, static_cast<long>(pick(node->size())));
      node->erase(it.key());
    } else if (action == 2 && node->is_object()) {
      (*node)["unknown_" + std::to_string(pick(100))] = odd_value(raw_strings);
    } else {
      *node = odd_value(raw_strings);
    }
  }

  std::mt19937_64 rng_;
  std::vector<std::string> templates_;
  nlohmann::json op_json_;
};

}  // namespace aopt::testing
