// The heuristic refiner: candidate kernels from retrieved experience tuples (Stage II's Refine
// step by diff transfer instead of an LLM). Named "heuristic-refiner" wherever it appears.
//
// Every candidate comes from the retrieved tuples: the bank is the refiner's only source of
// kernel knowledge, so an empty bank (or a retrieval that finds nothing) gives an empty list
// and Stage II ends. A tuple transfers to the kernel by:
//   a. its CodeDiff applied with fuzzy context matching (code_diff.hpp), origin "tuple:<id>";
//   b. the optimization rule of the tuple's motif (the counterpart of its rewind rule,
//      provenance.rule), then the optimization rules curing one of the tuple's tags, origin
//      "tuple:<id>+rule:<name>" (the tuple's motif, or a cure of its symptom, adapted to this
//      kernel's text). The tuple's primary transfer is the first of these that changes the
//      kernel; the others are its alternatives.
// A rule transfer has variants (kernel_rule::variants: which site it edits, queue depth, a tile
// enlarged twice), origin "...+rule:<name>[<label>]".
// Candidates, ranked, in the order to try them:
//   1. every tuple's primary transfer applied one after another (each onto the previous one's
//      result; a tuple that no longer transfers is skipped), when two or more contribute:
//      what an LLM refiner given the tuples would write; origins joined by " & ";
//   2. each tuple's primary transfer alone, best-retrieved first;
//   3. each pair of tuples combined the same way, when both contribute (compatible tuples);
//   4. each tuple's variants of its primary rule, then its alternative rules and their variants;
//   5. the free parameters of optimizations the kernel already has (kernel_rule::retunes: deeper
//      queues for a kernel that double-buffers already, each host tile in smaller kernel steps),
//      tuple by tuple; the tiling-equivalent ones only when the episode never searches the tiling.
// Every candidate records the tuples it used (tuple_ids) and, in its origin, the rules. Kernels
// equal to the input or to an earlier candidate are dropped; at most max_candidates.
//
// Thread-safety: const methods may run concurrently.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "agent/bank/experience_tuple.hpp"
#include "agent/episode/roles.hpp"

namespace aopt::agent {

struct refiner_options {
  size_t max_candidates = 32;
  size_t max_fuzz = 2;
};

struct refinement_input {
  std::string kernel;
  std::string tiling;                    // T, fixed during Stage II
  std::vector<experience_tuple> tuples;  // retrieved, best first
  // Stage I searches the tiling in this episode: variants that only do what a tiling change does
  // (rule_variant::tiling_equivalent) are left to it.
  bool tiling_searched = false;
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
