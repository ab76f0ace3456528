// A named, rule-based text transformation of an AscendC kernel, the unit of the heuristic
// rewind (de-optimization) and refinement (optimization) libraries. A rule keeps the kernel
// correct by construction where it can; whatever it cannot promise (UB capacity after a
// change of buffer counts, hazards the text does not show) the evaluation checks, and a
// candidate that fails is discarded.
//
// Thread-safety: rules are immutable; applies/apply are reentrant.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace aopt::agent {

// One outcome of a rule with its free parameters varied, labelled with what was varied.
struct rule_variant {
  std::string label;  // e.g. "depth 3", "site 2 of 3"
  std::string kernel;
  // It does only what a change of the host's tiling would do (a kernel step over part of the
  // host's tile): worth an evaluation only where the episode never searches the tiling.
  bool tiling_equivalent = false;
};

struct kernel_rule {
  std::string name;               // stable id, e.g. "double_to_single_buffer"
  std::string category;           // pipelining, synchronization, vectorization, memory, tiling,
                                  // fusion, multicore
  std::string title;              // the optimization the rule's pair teaches, as a tuple title
  std::string description;        // what the fast kernel does and why it is faster
  std::string bottleneck;         // the slow kernel's symptom, in the diagnoser's vocabulary
  std::vector<std::string> tags;  // diagnoser tags of that symptom
  std::string counterpart;        // the rule of the other library that undoes this one
  // The structure the rule edits, as a reason can name it when the rule does not apply ("a
  // queue's InitBuffer with one buffer or a runtime count").
  std::string looks_for;
  std::function<bool(const std::string& kernel)> applies;
  // The transformed kernel; failed_precondition when the rule does not apply.
  std::function<result<std::string>(const std::string& kernel)> apply;
  // Further outcomes besides apply()'s, best guess first; none when the rule does not apply or
  // has no free parameter. Empty function: none either.
  std::function<std::vector<rule_variant>(const std::string& kernel)> variants;
  // Outcomes that vary the optimization's free parameter where the kernel already has the
  // optimization (deeper queues for a kernel that double-buffers already); none when it does
  // not have it or the rule has no such parameter. Empty function: none either.
  std::function<std::vector<rule_variant>(const std::string& kernel)> retunes;
};

}  // namespace aopt::agent
