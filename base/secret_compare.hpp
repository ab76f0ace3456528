// Compares a presented secret with the expected one in constant time (issue 19: evaluation
// workers authenticate with a shared secret). Both are first reduced to SHA-256 digests, so
// that neither the time taken nor an early length check tells an attacker anything about the
// expected secret's length or content; the digests are compared with OpenSSL's CRYPTO_memcmp.
#pragma once

#include <string_view>

namespace aopt {

// False whenever `expected` is empty: an empty secret authenticates no one.
bool secret_matches(std::string_view presented, std::string_view expected);

}  // namespace aopt
