// answer_parser: turns an LLM answer into something the agent can evaluate.
//
// Code answers come in two forms:
//   * a fenced whole-file block (```cpp ... ```), which replaces the current source;
//   * SEARCH/REPLACE edit blocks, applied in order to the current source:
//         <<<<<<< SEARCH
//         text to find
//         =======
//         text to put instead
//         >>>>>>> REPLACE
//     Each SEARCH text must occur exactly once: first as written, then with whitespace
//     normalised line by line (runs of blanks collapsed, ends trimmed), since models often
//     re-indent. No match, or several, is a classified failure.
// JSON answers (diagnosis, distillation) are a bare object or one inside a ```json fence.
//
// A failure is recoverable: the agent records the step as a failed candidate with the reason.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.hpp"

namespace aopt::llm {

// Persistent: to_string() values are recorded as failure reasons; do not rename.
enum class answer_error {
  none,
  no_code,               // neither edit blocks nor a fenced code block
  malformed_edit_block,  // markers out of order, unterminated, or an empty SEARCH
  search_not_found,      // a SEARCH text matches nowhere, even whitespace-normalised
  search_ambiguous,      // a SEARCH text matches in several places
  evolve_block_missing,  // the current source has no (well-formed) EVOLVE-BLOCK
  outside_evolve_block,  // the answer changed text outside the EVOLVE-BLOCK(s)
  malformed_json,        // no JSON object in the answer
};

const char* to_string(answer_error kind);

// Why an answer could not be used: an invalid_argument status whose message starts with the
// kind, plus the kind itself, recorded as the failed step's reason.
class answer_failure : public status {
 public:
  answer_failure() = default;
  // REQUIRES: kind != answer_error::none.
  answer_failure(answer_error kind, const std::string& detail)
      : status(status_code::invalid_argument, std::string(llm::to_string(kind)) + ": " + detail),
        kind_(kind) {}

  answer_error kind() const { return kind_; }

 private:
  answer_error kind_ = answer_error::none;
};

template <class T>
using answer_result = result<T, answer_failure>;

struct edit_block {
  std::string search;   // lines between SEARCH and =======, each ending in '\n'
  std::string replace;  // lines between ======= and REPLACE, each ending in '\n'
};

struct code_answer {
  std::string source;             // the new whole source
  bool from_edits = false;        // edit blocks were applied (else a whole-file block)
  size_t edits = 0;               // edit blocks applied
  size_t whitespace_matches = 0;  // of which matched only whitespace-normalised
};

// Edit blocks when the answer has any, else the whole-file block.
answer_result<code_answer> extract_source(std::string_view answer, std::string_view current);

// The fenced code block of the answer: the longest one tagged cpp/c++/cc/cxx/c/h/hpp, else the
// longest untagged one.
answer_result<std::string> extract_fenced_code(std::string_view answer);

// All edit blocks of the answer, in order; an empty list when it has none.
answer_result<std::vector<edit_block>> parse_edit_blocks(std::string_view answer);

answer_result<code_answer> apply_edit_blocks(std::string_view source,
                                             const std::vector<edit_block>& blocks);

// Stage I rule: only text between `// EVOLVE-BLOCK-START` and `// EVOLVE-BLOCK-END` lines may
// differ between `before` and `after` (outside them, trailing blanks and blank lines at the edges
// of a stretch are ignored). Returns how many blocks changed.
answer_result<size_t> check_evolve_block_only(std::string_view before, std::string_view after);

// The JSON object of the answer: the whole answer, else a ```json (or any fenced) block, else the
// text from the first '{' to the last '}'.
answer_result<nlohmann::json> parse_json_answer(std::string_view answer);

}  // namespace aopt::llm
