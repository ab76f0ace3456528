// The simulator device: compiles a candidate against the AscendC shim, runs it in a sandboxed
// child process that executes, checks and times it on a simulated chip, and reports an
// eval_result whose latency is simulated (latency_is_simulated = true).
//
// One evaluation (issue 17: the candidate never judges itself; issue 30: what aopt trusts is out
// of the candidate's reach):
//   1. T and K pass the static screen (static_screen.hpp; compile_error "forbidden");
//   2. the expected outputs (driver_expected.hpp), kept in memory per operator, shape and number
//      of input sets (expected_cache.hpp), or made first: the package's reference builds alone in
//      a scratch directory of its own and `reference fd:<n> <sets>` runs there, its spec in a
//      sealed memfd; a failure here is infra_error "reference";
//   3. a scratch directory under options.work_dir receives the package's sources with T and K
//      substituted (candidate_builder), compiled with cached objects; kernel and host link with
//      the driver;
//   4. `candidate fd:<n>` runs in the scratch dir with resource limits, without network, in
//      its own process group, killed at eval_options.timeout_seconds, and delivers its outputs and
//      traces on stdout (driver_report.hpp); nothing it writes anywhere else is read. It maps its
//      input sets and its spec from sealed memfds (input_store.hpp, sealed_memfd.hpp). Whether
//      the machine failed it is decided from aopt's own state (the scratch dir checked before the
//      run, free space and descriptors after it), never from the scratch dir it may have broken;
//   5. the judge process (judge_process.hpp, driver_judge.hpp) decodes and judges the delivery
//      under a CPU-time and memory limit (runtime_error "judge_limit" when reached): comparison,
//      trace validation, GM replay, timing model, hazard detector, roofline. An exit 0 without a
//      delivery is runtime_error "no_delivery", a broken one "malformed_delivery"; a crash, a
//      signal, a timeout or a compiler failure is classified as before.
//   Before the first candidate of an operator runs, the expected outputs of every validation
//   shape are made too (prepare_validation_shapes).
// probe_tiling (npu/tiling_prober.hpp) builds the host unit alone (cached: the evaluation that
// follows fetches the same object), links it with the probe's main and runs `probe fd:<n>`
// under the same sandbox and limits as a candidate (input set 0 shared the same way), with the
// compile timeout as its wall clock; it reports the delivered tiling decision unjudged.
// The scratch directory is removed afterwards (kept on failure when options.keep_scratch);
// the device's construction sweeps the scratch directories of dead processes from work_dir.
//
// Thread-safety: evaluate() may run on several threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/cancellation.hpp"
#include "base/sandbox.hpp"
#include "base/scratch_dir.hpp"
#include "npu/device.hpp"
#include "npu/sim/device/ast_screen.hpp"
#include "npu/sim/device/bounded_cache.hpp"
#include "npu/sim/device/candidate_builder.hpp"
#include "npu/sim/device/compile_cache.hpp"
#include "npu/sim/device/expected_cache.hpp"
#include "npu/sim/device/input_store.hpp"
#include "npu/sim/device/judge_process.hpp"
#include "npu/sim/device/static_screen.hpp"
#include "npu/sim/device/tiling_constant_lift.hpp"
#include "npu/sim/runtime/driver_spec.hpp"
#include "npu/sim/runtime/hw_profile.hpp"
#include "npu/tiling_prober.hpp"

namespace aopt::npu {

struct sim_device_options {
  // Scratch directories go here, and the object cache unless cache_dir is set.
  // Default: <system temp>/aopt-sim.
  std::filesystem::path work_dir;
  std::filesystem::path cache_dir;  // default: <work_dir>/objcache
  uint64_t cache_max_bytes = 4ull << 30;
  // Leave the scratch directory of a failed evaluation on disk; its path is the last diagnostic.
  bool keep_scratch = false;

  // Limits of the candidate process. CPU time bounds a candidate that spins on several
  // threads; the wall clock (eval_options.timeout_seconds) bounds everything else.
  uint64_t cpu_seconds = 300;
  uint64_t address_space_bytes = 8ull << 30;
  uint64_t file_size_bytes = 256ull << 20;
  // What a delivery may carry beyond its outputs' size (the traces); a larger one is not what an
  // honest candidate delivers (runtime_error "malformed_delivery"), and the judge never reads it.
  uint64_t delivery_trace_bytes = 256ull << 20;
  uint64_t max_processes = 0;  // RLIMIT_NPROC; 0: leave it (the sandbox blocks fork anyway)
  bool sandbox = true;         // network namespace + seccomp (no fork, no sockets)
  // Limits of the judge process (judge_process.hpp): reaching one is the candidate's
  // runtime_error "judge_limit". The costliest honest judgements measured (issue 30 item 6):
  // corpus level 1 1.17 s of CPU and 950 MiB resident (8M-element operators, three input sets),
  // the wild operators 0.54 s and 210 MiB; the CPU limit is 50 times that, the address space
  // (which counts mappings, stacks and arenas beyond what is resident) the candidate's own. A
  // trace an attacker pads reaches the bound instead of holding aopt.
  uint64_t judge_cpu_seconds = 60;
  uint64_t judge_address_space_bytes = 8ull << 30;
  // The identity candidates, references, probes and compilers run as when sandboxed: by default
  // 65534:65534 when aopt is root, aopt's own otherwise (base/sandbox.hpp). The work dir is made
  // searchable by it; inside a directory it cannot search (a private 0700 parent), children keep
  // aopt's identity.
  std::optional<sandbox_identity> identity = untrusted_identity();
  // The static screen of T and K before compiling. Off only in tests that prove the trusted
  // checker holds without it.
  bool static_screen = true;
  // Bounds of the screen's libclang parse of each unit (screen_parser_pool.hpp).
  screen_parser_limits screen_limits;

  uint64_t compiler_address_space_bytes = 0;  // RLIMIT_AS of g++; 0: inherited
  // The wall-clock bound of the tiling probe's compile (probe_tiling has no eval_options; an
  // evaluation's compile has eval_options.compile_timeout_seconds).
  double probe_compile_timeout_seconds = eval_options{}.compile_timeout_seconds;
  uint32_t parallel_compiles = 2;
  // Build tiling programs with their tunable block's integer constants lifted into slots the
  // process fills (tiling_constant_lift.hpp): tilings that differ only in those values share one
  // object and executable. A program the rewrite does not build is built as written.
  bool lift_tiling_constants = true;
  // Cores the candidate processes share (0: the machine's). A candidate that starts while
  // fewer candidates than cores run gets the free ones for its input sets (driver_spec
  // set_threads); the report does not depend on it.
  uint32_t cores = 0;

  // The daemon's secrets (LLM API key, bearer token): never returned in a candidate's or the
  // compiler's output, should one get hold of them.
  std::vector<std::string> redact;

  sim_toolchain toolchain = default_sim_toolchain();
};

class sim_device : public device, public tiling_prober {
 public:
  sim_device(sim::hw_profile profile, sim_device_options options);
  ~sim_device() override;

  eval_result evaluate(const op_package& op, const std::string& tiling_source,
                       const std::string& kernel_source, const eval_options& options) override;

  tiling_probe_result probe_tiling(const op_package& op, const std::string& tiling_source) override;

  // "sim:<profile name>"
  std::string profile_id() const override;
  std::string checker_id() const override { return checker_id_; }

  const sim::hw_profile& hardware() const { return profile_; }
  // Object-cache counters: a Stage I evaluation adds one miss (the host unit) and one hit (the
  // kernel unit; the reference builds only when its expected outputs are not kept).
  compile_cache_stats cache_stats() const { return cache_->stats(); }

  // What the driver reads as its spec (its JSON form).
  sim::driver_spec driver_spec(const op_package& op, const eval_options& options) const;

  // How many input sets this device drew (input_store.hpp): once per operator and set while the
  // store holds them, however many candidates run on them.
  uint64_t input_sets_drawn() const { return inputs_->drawn(); }
  // The largest judge CPU time and memory of this device's evaluations so far (judge_process.hpp):
  // what the judge limits are measured against.
  judge_cost peak_judge_cost() const {
    const std::lock_guard lock(judge_cost_mutex_);
    return peak_judge_cost_;
  }
  // How many reference processes this device ran (each makes one shape's expected outputs).
  uint64_t references_run() const { return references_run_.load(); }

 private:
  // The first finding of the token screen of the includes in the tiling program, the kernel
  // (null: a probe builds no kernel) and the package's other sources, or nothing. It runs
  // before anything parses them: libclang then opens only allowed headers.
  std::optional<screen_finding> screen_includes_of(const op_package& op,
                                                   const std::string& tiling_source,
                                                   const std::string* kernel_source) const;
  // The AST screen of the same sources, started next to the build (which is sandboxed and
  // takes longer): its verdict is awaited before anything the build made runs. A refusal wins
  // over a compile error, and stops the build the moment it is reached (`stop_build`, handed to
  // the build as build_limits::cancel): a refused candidate costs no compile to its end or its
  // timeout. A finding marked unjudged refuses the candidate only if the compiler accepts what
  // the screen could not parse, so it stops nothing.
  struct running_screen {
    // Raised by the screen when it refuses the code, or by the evaluation when it cannot go on
    // (the reference failed); never null.
    std::shared_ptr<cancellation> stop_build = std::make_shared<cancellation>();
    std::future<std::optional<screen_finding>> verdict;  // invalid when the screen is off
  };
  running_screen start_ast_screen(const op_package& op, const std::string& tiling_source,
                                  const std::string* kernel_source) const;

  // A screened build of a tiling program: of its lifted text when lifting applies (`lifted`
  // then holds the values its process needs), else of the text as written.
  struct screened_build {
    build_outcome built;
    std::optional<screen_finding> found;
    // The environment entry that hands the process its lifted values; empty when the written
    // text was built.
    std::string lifted_assignment;
  };
  // The lifted form of `tiling_source` to build, or nothing: lifting is off, finds no constant,
  // or the same lifted text failed to screen or build before.
  std::optional<lifted_tiling> lift_for_build(const op_package& op,
                                              const std::string& tiling_source);
  // Awaits `screened` (the screen of `lifted`'s text, or of `tiling_source` when there is no
  // lifting, which holds a reference to it until it is awaited) and builds the same text. A lifted
  // text whose failure may be the lifting's (a screen finding in the tiling program, a failure to
  // compile or link that the kernel unit alone does not explain) is remembered, and
  // `tiling_source` is screened and built as written: the verdict is always the written program's.
  screened_build build_screened(const op_package& op, const std::string& tiling_source,
                                const std::optional<lifted_tiling>& lifted,
                                const std::string* kernel_source, const std::string& kernel_build,
                                const std::filesystem::path& scratch, const build_limits& limits,
                                running_screen screened);

  // The descriptors of an evaluation's input sets, held while its process runs.
  struct shared_input_sets {
    std::vector<std::shared_ptr<const unique_fd>> held;
    std::vector<int> descriptors() const;  // pass_fds: the child's 3, 4, ...
  };
  // The expected outputs of `op` for spec.input_sets sets, or why there are none (infra).
  struct reference_outcome {
    // The reference's delivery, sealed (expected_cache.hpp); null on failure.
    std::shared_ptr<const unique_fd> expected;
    std::string message;
    std::vector<std::string> diagnostics;
  };
  // From the expected cache, or made now: the reference builds alone in a scratch dir of its own
  // and runs there, reading its spec from a sealed memfd, before any candidate of the operator
  // (and shape) runs; nothing of a candidate is ever in that directory (issue 30). It reads
  // the input sets `inputs` shares, the very bytes the candidates read.
  reference_outcome expected_outputs_of(const op_package& op, const sim::driver_spec& spec,
                                        const eval_options& options,
                                        const shared_input_sets& inputs);
  // The reference executable of `op`, built in a scratch dir of its own; it reads its shapes from
  // its spec, so one build serves every shape of the operator.
  struct built_reference {
    scratch_dir dir;
    build_outcome built;
  };
  result<built_reference> build_reference(const op_package& op, const eval_options& options);
  // Runs `reference` for `spec` and keeps what it delivered in the expected cache.
  reference_outcome run_reference(const op_package& op, const sim::driver_spec& spec,
                                  const eval_options& options, const shared_input_sets& inputs,
                                  const built_reference& reference);
  static std::string expected_key(const op_package& op, const sim::driver_spec& spec);
  // The expected outputs of every validation shape of `op` (op.json's validation_shapes), made
  // once per operator, shape and number of input sets before the first candidate of `op` runs
  // on this device (issue 30 item 1): a validation shape's reference never runs after a
  // candidate of its operator, even the first time the final best is checked on it. A shape
  // whose reference fails is left to its own evaluation, which reports it (infra_error).
  void prepare_validation_shapes(const op_package& op, const eval_options& options);
  // Input sets 0..sets-1 of `op` from the store, named in spec.input_fds.
  result<shared_input_sets> share_inputs(const op_package& op, uint32_t sets,
                                         sim::driver_spec& spec);

  sim::hw_profile profile_;
  sim_device_options options_;
  std::string checker_id_;  // checker_identity() of the toolchain and profile
  std::unique_ptr<compile_cache> cache_;
  std::unique_ptr<candidate_builder> builder_;
  std::set<std::string> shim_headers_;      // what the static screen lets a source include
  std::unique_ptr<ast_screen> ast_screen_;  // the allow-list screen of the package's code
  std::unique_ptr<expected_cache> expected_;
  std::unique_ptr<input_store> inputs_;
  std::atomic<uint32_t> running_{0};  // candidate processes running (and being judged)
  std::atomic<uint64_t> references_run_{0};
  mutable std::mutex judge_cost_mutex_;
  judge_cost peak_judge_cost_;
  std::mutex prepared_mutex_;
  std::set<std::string> prepared_;  // operators whose validation shapes' outputs were made
  std::mutex unliftable_mutex_;
  bounded_cache<bool> unliftable_{1u << 20};  // lifted texts (keys) that did not build
};

}  // namespace aopt::npu
