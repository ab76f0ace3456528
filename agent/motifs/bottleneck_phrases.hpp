// The bottleneck vocabulary shared by the heuristic diagnoser (which phrases its query with it)
// and the rewind rules (whose tuples' Bottleneck fields use it), so that lexical retrieval
// matches a diagnosed symptom with the tuples that cure it.
//
// Tags (diagnoser output, tuple tags):
//   mte2_bound, mte3_bound, vector_bound, no_overlap, scalar_heavy, barrier_stall,
//   core_underuse, core_imbalance, small_bursts, ub_underuse, launch_bound, extra_gm_traffic,
//   near_roofline
//
// Thread-safety: immutable data.
#pragma once

#include <string>
#include <vector>

namespace aopt::agent {

// Every tag above, in that order.
const std::vector<std::string>& bottleneck_tags();

// One sentence describing the symptom of `tag`; empty for an unknown tag.
std::string bottleneck_phrase(const std::string& tag);

// The phrases of `tags` joined by spaces, in the order given (unknown tags skipped).
std::string bottleneck_text(const std::vector<std::string>& tags);

}  // namespace aopt::agent
