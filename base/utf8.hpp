// Valid UTF-8 for text that comes from outside (URLs, request bodies, file names, candidate
// stdout/stderr, compiler diagnostics, LLM answers) before it reaches JSON, logs or the database.
//
// nlohmann_json throws type_error 316 when it serializes a string that is not valid UTF-8; an
// exception escaping a handler then takes an actor or the whole daemon down. So every such text
// passes through to_valid_utf8() at the boundary where it enters aopt, and dump_json() is the
// last line of defence where JSON leaves it.
//
// Validity follows RFC 3629: no overlong forms, no surrogates (U+D800..U+DFFF), nothing above
// U+10FFFF. Each maximal invalid subpart (the W3C/WHATWG "substitution of maximal subparts"
// practice) becomes one U+FFFD REPLACEMENT CHARACTER, so "\xe2\x82" is one U+FFFD and "\xff\xfe"
// is two.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace aopt {

// True when `text` is entirely valid UTF-8 (the empty text is).
bool is_valid_utf8(std::string_view text);

// The offset of the first byte that starts an invalid sequence, or std::string_view::npos.
size_t invalid_utf8_offset(std::string_view text);

// `text` with every invalid sequence replaced by U+FFFD; valid text is returned unchanged.
std::string to_valid_utf8(std::string_view text);

// In place; cheap (one scan, no allocation) when `text` is already valid.
void make_valid_utf8(std::string& text);

// The longest prefix of `text` of at most `max_bytes` bytes that does not cut a UTF-8
// sequence in two (invalid bytes count as one-byte sequences).
std::string_view utf8_prefix(std::string_view text, size_t max_bytes);

// j.dump(indent) that never throws on invalid UTF-8 in a string: such bytes become U+FFFD.
std::string dump_json(const nlohmann::json& j, int indent = -1);

}  // namespace aopt
