// Unified diffs between kernel sources: made with dtl (the edit script), applied with fuzzy
// context matching so a tuple's CodeDiff, distilled from one kernel, can transfer to another.
//
// Applying, hunk by hunk in order:
//   1. the hunk's old side (context and removed lines) is compared with the target line by line,
//      ignoring all whitespace;
//   2. it is searched at every position after the previous hunk, nearest to the line the header
//      names (shifted by the previous hunk's offset) first, the earlier position on a tie;
//   3. failing that, up to `max_fuzz` leading and trailing context lines are dropped (as GNU
//      patch's fuzz) and the search repeats; at least one non-blank line must still match;
//   4. added lines take the target's indentation: when the matched target lines are indented
//      more (or less) than the hunk's, the added lines are shifted by the same prefix.
// The result is all-or-nothing: the text changes only when every hunk found its place. File
// headers (---/+++) are skipped, so a diff is applied to the one target whatever it names;
// "\ No newline at end of file" markers are ignored and the target keeps its own final newline.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::agent {

struct diff_options {
  size_t context = 3;  // unchanged lines around each change
  std::string old_label = "a/kernel.cpp";
  std::string new_label = "b/kernel.cpp";
};

// The unified diff turning `before` into `after`, empty when they are equal.
std::string make_unified_diff(const std::string& before, const std::string& after,
                              const diff_options& options = {});

struct patch_options {
  size_t max_fuzz = 2;
};

struct hunk_report {
  size_t index = 0;  // 1-based position in the diff
  bool applied = false;
  size_t header_line = 0;   // old start line the header names
  size_t matched_line = 0;  // 1-based target line where the (fuzz-trimmed) hunk matched
  long offset = 0;          // matched_line minus the expected line
  size_t fuzz = 0;          // context lines dropped at each end
  std::string message;      // why it failed, empty when applied
};

struct patch_outcome {
  bool applied = false;  // every hunk applied
  std::string text;      // the patched target, or the target unchanged when !applied
  std::vector<hunk_report> hunks;
};

// invalid_argument when `diff` holds no hunk or a malformed hunk header.
result<patch_outcome> apply_unified_diff(const std::string& target, const std::string& diff,
                                         const patch_options& options = {});

}  // namespace aopt::agent
