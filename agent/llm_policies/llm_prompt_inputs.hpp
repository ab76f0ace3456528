// The text the LLM policies put into their prompt templates' variables (config/prompts/*.md):
// the operator, a measured profile, the Stage I history, retrieved tuples and a diagnosis.
//
// A simulated latency is always labelled as simulated, so the model (and whoever reads the
// prompt) never takes it for a hardware measurement.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "agent/episode/roles.hpp"
#include "npu/op_package.hpp"
#include "npu/protocol/eval_result.hpp"

namespace aopt::agent {

// The operator's op.json as JSON text.
std::string describe_op(const npu::op_package& op);

// "41.70 us (simulated)" or "41.70 us (measured on hardware)".
std::string describe_latency(double latency_us, bool simulated);

// Status, latency, the pipe profile and the roofline of one evaluation.
std::string describe_result(const npu::eval_result& r);

// One line per trial, oldest first: the tunable values of its tiling program (or "(no
// tunables)"), then its latency and origin, or "failed (<kind>)" ("failed (<kind>: <detail>)"
// when it has a detail, e.g. a tiling probe rejection). "none yet" when empty.
std::string describe_history(const std::vector<tiling_trial>& history);

// Each tuple with its title, bottleneck, description and code diff, best first; a sentence
// saying none was retrieved when empty.
std::string describe_tuples(const std::vector<tuple_ref>& tuples);

std::string describe_diagnosis(const diagnosis& d);

// What the annotating roles said (agent/episode/hooks.hpp), as a section of its own that follows
// another: "\n\n## What the annotating roles say\n- profiler: ..."; "" when there is none, so
// that a prompt without annotators reads exactly as before.
std::string describe_annotations(const std::vector<annotation>& notes);

// The rewrites the gates vetoed, with their reasons, as a section of its own; "" when none.
std::string describe_vetoes(const std::vector<veto_note>& vetoes);

// "NAME=value, NAME=value" of the tunables in `tiling`; "" when it has none.
std::string describe_tunable_values(const std::string& tiling);

}  // namespace aopt::agent
