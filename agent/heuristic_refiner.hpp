// The heuristic refiner: candidate kernels from retrieved experience tuples (Stage II's Refine
// step by diff transfer instead of an LLM). Named "heuristic-refiner" wherever it appears.
//
// Every candidate comes from the retrieved tuples: the bank is the refiner's only source of
// kernel knowledge, so an empty bank (or a retrieval that finds nothing) gives an empty list
// and Stage II ends. A tuple transfers to the kernel by, in order:
//   a. its CodeDiff applied with fuzzy context matching (code_diff.hpp), origin "tuple:<id>";
//   b. when the diff does not apply (the kernel is written differently from the expert the
//      tuple came from), the optimization rule that undoes the tuple's rewind rule
//      (provenance.rule), then the optimization rules curing one of the tuple's tags, the
//      first that changes the kernel, origin "tuple:<id>+rule:<name>" (the tuple's motif, or
//      a cure of its symptom, adapted to this kernel's text).
// Candidates, in the order to try them:
//   1. when two or more tuples transfer to different kernels: all of them applied one after
//      another (each to the previous one's result), origin the single origins joined by " & ",
//      tuple_ids every tuple that contributed: what an LLM refiner given the tuples would
//      write, tested by one evaluation;
//   2. each tuple's transfer alone, best-retrieved first.
// Kernels equal to the input or to an earlier candidate are dropped; at most max_candidates.
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
  size_t max_fuzz = 2;
};

struct refinement_input {
  std::string kernel;
  std::string tiling;                    // T, fixed during Stage II
  std::vector<experience_tuple> tuples;  // retrieved, best first
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
