// The C++ tokens of a source text, as the compiler's lexer (libclang) splits it: comments and
// layout are not tokens, so two texts with the same tokens are the same program to the compiler.
// Includes are not followed and the text is never compiled: any source, even one whose headers
// are absent, has a token sequence.
//
// Thread-safety: each call uses its own libclang index.
#pragma once

#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::agent {

// The spelling of each token of `source`, in order. invalid_argument when libclang cannot read
// the text at all.
result<std::vector<std::string>> token_sequence(const std::string& source);

// Whether `a` and `b` differ in comments and layout only; false when either cannot be read.
bool same_tokens(const std::string& a, const std::string& b);

}  // namespace aopt::agent
