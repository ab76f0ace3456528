// Challenge-response authentication with a shared secret (issue 19: evaluation workers join a
// coordinator). The coordinator sends a fresh random nonce; the peer answers with
// HMAC-SHA256(secret, nonce || identity); the coordinator computes the same and compares in
// constant time. The secret never crosses the wire, and an answer is good for one nonce and one
// identity only, so a recorded answer cannot be replayed.
#pragma once

#include <string>
#include <string_view>

#include "base/status.hpp"

namespace aopt {

// 32 random bytes from OpenSSL's RAND_bytes, as 64 lowercase hex digits. Errors: unavailable
// when the random generator fails.
result<std::string> random_nonce();

// HMAC-SHA256(secret, nonce || identity) as 64 lowercase hex digits.
std::string challenge_answer(std::string_view secret, std::string_view nonce,
                             std::string_view identity);

// True when `answer` is challenge_answer(secret, nonce, identity), compared with OpenSSL's
// CRYPTO_memcmp. False whenever `secret` is empty: an empty secret authenticates no one.
bool answer_matches(std::string_view answer, std::string_view secret, std::string_view nonce,
                    std::string_view identity);

}  // namespace aopt
