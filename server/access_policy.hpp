// Who may use the API: everyone (a loopback listener without a token) or only clients that
// send "Authorization: Bearer <token>". Tokens are compared in constant time: both sides are
// hashed (SHA-256) and the digests compared with CRYPTO_memcmp, so neither the position of the
// first differing byte nor the token's length shows in the timing.
//
// Thread-safety: immutable after construction; safe to share.
#pragma once

#include <string>
#include <string_view>

namespace aopt::server {

// Equal contents, in time independent of where they differ.
bool constant_time_equals(std::string_view a, std::string_view b);

class access_policy {
 public:
  // An empty token admits every request.
  explicit access_policy(std::string token) : token_(std::move(token)) {}

  bool token_required() const { return !token_.empty(); }
  // `authorization`: the Authorization header's value ("" when absent).
  bool admits(std::string_view authorization) const;

 private:
  std::string token_;
};

}  // namespace aopt::server
