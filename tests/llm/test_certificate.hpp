// A self-signed TLS identity made at test time with OpenSSL's C API: an EC P-256 key and a
// certificate (by default for 127.0.0.1 and localhost) that can also act as its own CA (so a client
// can be told to trust it through a CA file).
#pragma once

#include <string>

namespace aopt::test {

struct test_certificate {
  std::string certificate_pem;
  std::string private_key_pem;
};

// Throws std::runtime_error if OpenSSL fails (a broken test environment).
// `subject_alt_names` in OpenSSL's config syntax.
test_certificate make_self_signed_certificate(
    const std::string& subject_alt_names = "IP:127.0.0.1,DNS:localhost");

}  // namespace aopt::test
