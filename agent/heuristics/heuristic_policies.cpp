#include "agent/heuristics/heuristic_policies.hpp"

#include <algorithm>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "base/content_hash.hpp"
#include "npu/op_package.hpp"

namespace aopt::agent {

namespace {

std::string short_hash(const std::string& text) {
  return content_hash({text}).substr(0, 16);
}

uint64_t generation_seed(uint64_t seed, const std::string& op, const std::string& generation) {
  std::string h = content_hash({"heuristic-mutator-seed", std::to_string(seed), op, generation});
  return std::stoull(h.substr(0, 15), nullptr, 16);
}

// Element sizes of the operator's tensors: the smallest, and the sum (bytes one tile element
// occupies over all tensors).
std::pair<uint32_t, uint32_t> element_sizes(const npu::op_package* op, uint32_t fallback) {
  if (op == nullptr) return {fallback, 0};
  uint32_t smallest = 0;
  uint32_t sum = 0;
  for (const auto* list : {&op->spec.inputs, &op->spec.outputs}) {
    for (const npu::tensor_spec& t : *list) {
      uint32_t size = npu::dtype_size(t.type);
      smallest = smallest == 0 ? size : std::min(smallest, size);
      sum += size;
    }
  }
  return {smallest == 0 ? fallback : smallest, sum};
}

// Elements of the operator's largest tensor (0 without an operator).
uint64_t largest_tensor_elements(const npu::op_package* op) {
  uint64_t largest = 0;
  if (op == nullptr) return 0;
  for (const auto* list : {&op->spec.inputs, &op->spec.outputs}) {
    for (const npu::tensor_spec& t : *list) {
      uint64_t n = 1;
      for (int64_t d : t.shape) n *= static_cast<uint64_t>(std::max<int64_t>(d, 1));
      largest = std::max(largest, n);
    }
  }
  return largest;
}

// The tunable values of `tiling` when it has exactly the tunables `names`.
std::optional<tunable_values> values_of(const std::string& tiling,
                                        const std::set<std::string>& names) {
  result<std::vector<tunable>> t = parse_tunables(tiling);
  if (!t.ok() || t->size() != names.size()) return std::nullopt;
  tunable_values v = current_values(*t);
  for (const auto& [name, value] : v) {
    (void)value;
    if (names.count(name) == 0) return std::nullopt;
  }
  return v;
}

}  // namespace

heuristic_mutator_policy::heuristic_mutator_policy(heuristic_mutator_policy_options options)
    : options_(options) {}

result<mutation_reply> heuristic_mutator_policy::mutate(const mutation_request& request) {
  const std::string op_name = request.op != nullptr ? request.op->spec.name : std::string();
  auto [smallest, per_element] = element_sizes(request.op, options_.mutator.element_bytes);
  mutator_options mopts = options_.mutator;
  mopts.element_bytes = smallest;
  mopts.data_elements = largest_tensor_elements(request.op);
  // The constraints the probe and the device report, modelled so proposals satisfy them.
  mopts.cores = static_cast<uint32_t>(std::max<int64_t>(0, options_.synthesis.cores));
  mopts.ub_bytes = options_.ub_bytes;
  mopts.tile_bytes_per_element = per_element;

  nlohmann::json state = request.policy_state;
  const std::string kernel_hash = short_hash(request.kernel);
  const bool fresh = !state.is_object() || state.value("kind", "") != "heuristic-mutator-policy" ||
                     state.value("kernel", "") != kernel_hash;

  std::string base;
  std::vector<tunable> tunables;
  if (fresh) {
    // Errors name the file the tiling came from.
    const std::string file = request.op != nullptr && !request.op->spec.files.host.empty()
                                 ? request.op->spec.files.host
                                 : std::string("tiling");
    result<std::vector<tunable>> parsed = parse_tunables(request.tiling);
    if (parsed.ok()) {
      base = request.tiling;
      tunables = std::move(*parsed);
    } else if (parsed.error().code() == status_code::not_found) {
      // Parsed under its real name, the tiling program's own includes resolve.
      synthesis_options synthesis = options_.synthesis;
      if (request.op != nullptr && !request.op->spec.files.host.empty())
        synthesis.file_name = (request.op->dir / request.op->spec.files.host).string();
      if (request.op != nullptr && !request.op->spec.files.kernel.empty())
        synthesis.kernel_file_name = (request.op->dir / request.op->spec.files.kernel).string();
      // The package's include folders (op.json's, `--include-dir`): helpers such as `Ceil` or
      // `FloorAlign` the tiling calls come from there, and an unresolved call is no lever.
      if (request.op != nullptr) {
        for (const auto& dir : request.op->include_dirs)
          synthesis.include_dirs.push_back(dir.string());
      }
      result<synthesized_template> t =
          synthesize_template(request.tiling, synthesis, request.kernel);
      if (!t.ok()) return failed_precondition("no tunables: " + t.error().message());
      base = t->source;
      tunables = std::move(t->tunables);
    } else {
      // Unreadable annotations are an error, never "nothing to propose".
      return unreadable_input(file + ": " + parsed.error().message());
    }
    if (tunables.empty())
      return failed_precondition("no tunables: the EVOLVE-BLOCK of " + file + " holds none");
  } else {
    base = state.value("base", "");
  }

  admissibility_check check;
  if (options_.ub_bytes > 0 && per_element > 0) {
    result<std::vector<tunable>> base_tunables = parse_tunables(base);
    if (base_tunables.ok())
      check = make_ub_capacity_check(*base_tunables, options_.ub_bytes, per_element,
                                     static_cast<uint32_t>(options_.synthesis.cores));
  }

  std::optional<heuristic_mutator> mutator;
  std::set<std::string> seen;
  uint64_t generation = 0;
  if (fresh) {
    generation = state.is_object() ? state.value("generation", uint64_t{0}) + 1 : 0;
    // Without a state (the first call, or best_of_n, which never passes one back) the sample
    // index tells independent requests apart.
    mopts.seed =
        generation_seed(options_.mutator.seed, op_name,
                        state.is_object() ? std::to_string(generation)
                                          : "first-" + std::to_string(request.sample_index));
    // A later generation (Stage II changed the kernel) starts from the best tiling the earlier
    // ones found: the space was explored already, and which regions are fast rarely changes with
    // a kernel rewrite, so its steps refine around that start instead of sampling the whole
    // space again (issue 35: on real operators the second round's space-filling samples threw
    // away the core count the first round had found, 37 of 40, for 25, 8, 28, 16 and 4).
    if (state.is_object()) mopts.initial_samples = 0;
    mutator.emplace(tunables, mopts, check);
    // Repairing a failed baseline: its values are infeasible, not the reference; the moves
    // that reduce what failed come first, one tunable at a time, then together.
    mutator->report(
        current_values(tunables),
        request.repairing ? std::nullopt : std::optional<double>(request.best_latency_us),
        request.repairing ? request.repair_kind : std::string());
    if (request.repairing) mutator->begin_repair(request.repair_kind);
    // History so far was measured with other kernels (or is the generation's own start).
    for (const tiling_trial& trial : request.history) seen.insert(short_hash(trial.tiling));
  } else {
    result<heuristic_mutator> loaded =
        heuristic_mutator::load(state.value("mutator", nlohmann::json()), check);
    if (!loaded.ok()) return loaded.error().with_context("heuristic-mutator state");
    mutator.emplace(std::move(*loaded));
    generation = state.value("generation", uint64_t{0});
    seen = state.value("seen", std::set<std::string>{});
  }

  std::set<std::string> names;
  for (const tunable& t : mutator->tunables()) names.insert(t.name);
  for (const tiling_trial& trial : request.history) {
    if (seen.count(short_hash(trial.tiling)) != 0) continue;
    // A failed trial's summary is its failure kind: the mutator learns the region.
    if (std::optional<tunable_values> v = values_of(trial.tiling, names))
      mutator->report(*v, trial.latency_us, trial.latency_us ? std::string() : trial.summary);
  }

  const std::map<std::string, uint32_t> rejected_before = mutator->rejected();
  std::optional<tunable_values> proposal = mutator->propose();
  if (!proposal) {
    return failed_precondition(
        fmt::format("search space of {} tunables exhausted after {} value sets",
                    mutator->tunables().size(), mutator->tried_count()));
  }
  result<std::string> applied = apply_values(base, *proposal);
  if (!applied.ok()) return internal_error("heuristic-mutator: " + applied.error().message());

  mutation_reply reply;
  reply.tiling = std::move(*applied);
  reply.origin = "heuristic-mutator: " + mutator->last_change();
  for (const auto& [reason, n] : mutator->rejected()) {
    auto it = rejected_before.find(reason);
    const uint32_t added = n - (it == rejected_before.end() ? 0 : it->second);
    if (added > 0) reply.rejected[reason] = added;
  }
  reply.policy_state = {{"kind", "heuristic-mutator-policy"},
                        {"version", 1},
                        {"base", base},
                        {"kernel", kernel_hash},
                        {"generation", generation},
                        {"seen", seen},
                        {"mutator", mutator->save()}};
  return reply;
}

heuristic_diagnoser_policy::heuristic_diagnoser_policy(diagnoser_options options)
    : diagnoser_(options) {}

result<diagnosis> heuristic_diagnoser_policy::diagnose(const diagnosis_request& request) {
  diagnosis_input input;
  input.result = &request.result;
  input.kernel = request.kernel;
  if (request.op != nullptr) {
    input.io_bytes = request.op->spec.io_bytes();
    input.tensor_count =
        static_cast<uint32_t>(request.op->spec.inputs.size() + request.op->spec.outputs.size());
  }
  return diagnoser_.diagnose(input).as_diagnosis();
}

bm25_retriever_policy::bm25_retriever_policy(const std::vector<experience_tuple>& bank,
                                             bm25_options options)
    : index_(options) {
  for (const experience_tuple& t : bank) add(t);
}

void bm25_retriever_policy::add(const experience_tuple& t) {
  std::unique_lock lock(mutex_);
  index_.add(t);
  tuples_[t.id] = t;
}

result<std::vector<tuple_ref>> bm25_retriever_policy::retrieve(const diagnosis& query,
                                                               uint32_t top_k) {
  std::shared_lock lock(mutex_);
  std::vector<tuple_ref> out;
  std::set<std::string> scored;
  for (const retrieval_hit& hit : index_.top_k(query.query, top_k)) {
    out.push_back({hit.id, hit.score, nlohmann::json(tuples_.at(hit.id))});
    scored.insert(hit.id);
  }
  for (auto it = tuples_.begin(); it != tuples_.end() && out.size() < top_k; ++it) {
    if (scored.count(it->first) == 0) out.push_back({it->first, 0.0, nlohmann::json(it->second)});
  }
  return out;
}

heuristic_refiner_policy::heuristic_refiner_policy(refiner_options options) : refiner_(options) {}

result<std::vector<kernel_candidate>> heuristic_refiner_policy::refine(
    const refinement_request& request) {
  refinement_input input;
  input.kernel = request.kernel;
  input.tiling = request.tiling;
  input.tiling_searched = request.tiling_searched;
  for (const tuple_ref& ref : request.tuples) {
    result<experience_tuple> t = experience_tuple_from_json(ref.tuple);
    if (t.ok()) input.tuples.push_back(std::move(*t));
  }
  return refiner_.refine(input);
}

}  // namespace aopt::agent
