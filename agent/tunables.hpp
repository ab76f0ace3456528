// Tunables: the integer constants of a tiling program T that the heuristic mutator may change.
//
// They live between two marker lines, one declaration per line, each annotated with its domain
// (DESIGN §7):
//
//   // EVOLVE-BLOCK-START
//   constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]
//   constexpr uint32_t TILE_LENGTH = 2048;  // tunable: pow2 [256, 32768]
//   constexpr uint32_t BUFFER_NUM = 1;      // tunable: choice {1, 2}
//   constexpr int32_t ROWS = 16;            // tunable: range [8, 2048] step 8
//   // EVOLVE-BLOCK-END
//
// Grammar of a tunable line: optional `static`, `constexpr`, an integer type (int, unsigned,
// long, short, size_t, [u]int8/16/32/64_t, in any spelling C++ accepts), a name, `=`, a decimal
// literal with an optional sign and u/l suffixes, `;`, then `// tunable: <domain>` where
// <domain> is
//   range [lo, hi]            every integer from lo to hi
//   range [lo, hi] step s     lo, lo+s, lo+2s, ... up to hi
//   pow2 [lo, hi]             the powers of two between lo and hi
//   choice {a, b, ...}        the listed values
// Text after the domain is a free comment. Lines of a block without `tunable:` are left alone;
// a source may hold several blocks. The current value must lie in its domain.
//
// Thread-safety: value types and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::agent {

enum class tunable_kind { range, pow2, choice };

const char* to_string(tunable_kind kind);

struct tunable {
  std::string name;
  std::string type;  // as written, e.g. "uint32_t"
  tunable_kind kind = tunable_kind::range;
  int64_t lo = 0;
  int64_t hi = 0;
  int64_t step = 1;              // range only
  std::vector<int64_t> choices;  // choice only, in annotation order
  int64_t value = 0;             // current value in the source
  size_t line = 0;               // 1-based line of the declaration

  bool admits(int64_t v) const;
  // Every value of the domain in increasing order (choices in annotation order). REQUIRES:
  // the domain has at most `limit` values; returns an empty list otherwise.
  std::vector<int64_t> domain(size_t limit = 1 << 16) const;
  // The domain as written after "tunable: ", e.g. "pow2 [256, 32768]".
  std::string domain_text() const;
};

using tunable_values = std::map<std::string, int64_t>;

// The tunables of `source` in source order. not_found when there is no EVOLVE-BLOCK;
// invalid_argument naming the line for an unterminated block, a malformed annotation, a
// duplicate name or a value outside its domain.
result<std::vector<tunable>> parse_tunables(const std::string& source);

// The current values of `tunables` by name.
tunable_values current_values(const std::vector<tunable>& tunables);

// `source` with the literal of each named tunable replaced by its new value; every other byte is
// unchanged (suffixes, spacing and annotations included). invalid_argument when a name is not a
// tunable of `source` or a value lies outside its domain.
result<std::string> apply_values(const std::string& source, const tunable_values& values);

}  // namespace aopt::agent
