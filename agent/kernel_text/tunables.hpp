// Tunables: the integer constants of a tiling program T that the heuristic mutator may change.
//
// A tunable is a declaration annotated with its domain (docs/design.md §7, docs/tunable-annotations.md):
//
//   constexpr uint32_t BLOCK_DIM = 8;       // tunable: range [1, 40]
//   const uint32_t TILE_LENGTH = 2048;      // tunable: pow2 256..32768
//   static const int BUFFER_NUM = 1;        // tunable: {1, 2}
//   #define ROWS 16                         // tunable: multiple of 8, 8..2048
//
// Declarations: `[static|inline] const|constexpr [static] <integer type> NAME = <literal>;` or
// `#define NAME <literal>`, with an integer type C++ accepts (int, unsigned, long, short,
// size_t, [u]int8/16/32/64_t, ...) and a decimal literal with an optional sign, u/l suffixes
// and parentheses. The annotation is a `//` or `/* */` comment starting with `tunable:` (or
// `@tunable:`) on the same line, or alone on the line just above the declaration. Domains:
//   [range] [lo, hi] | [range] lo..hi | [range] lo-hi     every integer from lo to hi
//   ... step s | multiple of s, <range> | <range>, multiple of s   a grid of step s
//   pow2 <range> | power of two <range>                             the powers of two in it
//   [choice] {a, b, ...} | one of {a, b, ...}                       the listed values
// Text after the domain is a free comment. Annotated declarations may sit anywhere in the file;
// `// EVOLVE-BLOCK-START` / `// EVOLVE-BLOCK-END` marker blocks (several allowed) are optional,
// and inside them every line mentioning `tunable:` must be an annotated declaration. A line
// that carries the annotation but cannot be read is an error naming the line and what was
// expected, never skipped. The current value must lie in its domain.
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
  // Free text after the domain; synthesized tunables say there why the constant was chosen.
  std::string note;

  bool admits(int64_t v) const;
  // Every value of the domain in increasing order (choices in annotation order). REQUIRES:
  // the domain has at most `limit` values; returns an empty list otherwise.
  std::vector<int64_t> domain(size_t limit = 1 << 16) const;
  // The domain as written after "tunable: ", e.g. "pow2 [256, 32768]".
  std::string domain_text() const;
};

using tunable_values = std::map<std::string, int64_t>;

// The tunables of `source` in source order. not_found when there is neither an EVOLVE-BLOCK
// nor an annotated declaration; invalid_argument naming the line and what was expected for an
// unterminated block, a malformed declaration or domain, a duplicate name or a value outside
// its domain.
result<std::vector<tunable>> parse_tunables(const std::string& source);

// The current values of `tunables` by name.
tunable_values current_values(const std::vector<tunable>& tunables);

// `source` with the literal of each named tunable replaced by its new value; every other byte is
// unchanged (suffixes, spacing and annotations included). invalid_argument when a name is not a
// tunable of `source` or a value lies outside its domain.
result<std::string> apply_values(const std::string& source, const tunable_values& values);

}  // namespace aopt::agent
