// The heuristic refiner: candidate kernels from retrieved experience tuples and rule-based
// optimizations (Stage II's Refine step by diff transfer instead of an LLM). Named
// "heuristic-refiner" wherever it appears.
//
// Candidates, in the order to try them:
//   1. for each retrieved tuple, best first: its CodeDiff applied to the kernel with fuzzy
//      context matching (code_diff.hpp), origin "tuple:<id>"; when the diff does not apply, the
//      optimization rule that undoes the tuple's rewind rule (provenance.rule), or else the
//      rules sharing a tag with the tuple, origin "tuple:<id>+rule:<name>";
//   2. the optimization rules (optimization_rules.hpp) that apply, those whose tags meet the
//      diagnosis tags first (in the diagnosis' tag order), then the rest in library order,
//      origin "rule:<name>". With no tuples this part runs only when rules_without_tuples.
// Kernels equal to the input or to an earlier candidate are dropped; at most max_candidates.
// An empty bank and no applicable rule give an empty list, a valid answer.
//
// Thread-safety: const methods may run concurrently.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "agent/experience_tuple.hpp"
#include "agent/roles.hpp"

namespace aopt::agent {

struct refiner_options {
  size_t max_candidates = 8;
  bool rules_without_tuples = true;
  size_t max_fuzz = 2;
};

struct refinement_input {
  std::string kernel;
  std::string tiling;                     // T, fixed during Stage II
  std::vector<experience_tuple> tuples;   // retrieved, best first
  std::vector<std::string> tags;          // the diagnosis tags, most severe first
};

class heuristic_refiner {
 public:
  explicit heuristic_refiner(refiner_options options = {});

  std::string name() const { return "heuristic-refiner"; }
  std::vector<kernel_candidate> refine(const refinement_input& input) const;

 private:
  refiner_options options_;
};

}  // namespace aopt::agent
