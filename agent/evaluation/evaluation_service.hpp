// The evaluation service: the one owner of what evaluating a candidate (T, K) takes, in order:
//
//   1. the evaluation-cache lookup: the same (device profile, operator, T, K, checking options)
//      is never evaluated twice (confirmations and validation checks always go to the device);
//   2. a device slot lease and 3. the device call, both through npu::device_slots (this
//      process's slots, or the device pool actor's, which may lease a remote worker's);
//   4. the cache entry: which result may be stored under which key (eval_cache_entry_for).
//
// The entry is stored by whoever records the evaluation's outcome, in the same write: the
// episode journal writes it together with the transition that used it, so that the cache never
// holds a result the campaign's history does not. The evaluator actor (actors/evaluator.hpp) is
// a thin adapter over this class; the bank builder's rewinder calls it directly.
//
// Thread-safety: evaluate() may be called from several threads at once (the slots bound how
// many reach the device); the cache must allow concurrent lookups.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/status.hpp"
#include "npu/device.hpp"
#include "npu/device_slots.hpp"

namespace aopt::agent {

// Where evaluation results are looked up by cache key (implemented over the store by
// store_journal). A miss, or an entry that cannot be read, is nullopt.
class eval_cache {
 public:
  virtual ~eval_cache() = default;
  virtual std::optional<npu::eval_result> lookup(const std::string& key) = 0;
};

// A result to store in the evaluation cache under `key`.
struct eval_cache_entry {
  std::string key;
  npu::eval_result result;
};

// Whether a fresh evaluation result may be stored: not a transient failure
// (npu::is_transient_failure); such a candidate is evaluated again when it comes up again.
bool is_cacheable(const npu::eval_result& r);

// The entry to store for `r`, the outcome of the evaluation keyed `key` (a confirmed result
// included); nullopt when `key` is empty (the evaluation itself failed) or `r` is not cacheable.
std::optional<eval_cache_entry> eval_cache_entry_for(const std::string& key,
                                                     const npu::eval_result& r);

// The cache key of evaluating (T, K) of `op` on a device with `profile_id` under `options`. A
// validation (a final best checked on a reshaped `op`, correctness only) has keys of its own,
// which never answer a tuning evaluation.
std::string eval_cache_key(const std::string& profile_id, const npu::op_package& op,
                           const std::string& tiling, const std::string& kernel,
                           const npu::eval_options& options, bool validation = false);

// One candidate to evaluate.
struct evaluation_call {
  std::shared_ptr<const npu::op_package> op;  // not null
  std::string tiling;
  std::string kernel;
  std::string campaign;  // who asked (the slot owner's bookkeeping)
  // A confirmation: evaluated on the device from a cold build, never answered from the cache.
  bool cold = false;
  // A check of a final best on a validation shape (`op` reshaped), correctness only; answered
  // from the cache under a validation key of its own (a resumed or repeated campaign does not
  // check the same best on the same shape again).
  bool validation = false;
};

struct evaluation {
  npu::eval_result result;  // from_cache when the cache answered
  std::string cache_key;    // the key of this (profile, op, T, K, options)
};

// What evaluating one candidate takes before any slot: its cache key, and either the cache's
// answer or the job a slot must run. A caller that leases slots asynchronously (the evaluator
// actor) runs `job` itself; evaluate() runs it on this service's slots.
struct evaluation_plan {
  std::string cache_key;
  std::optional<npu::eval_result> cached;  // from_cache; when set, `job` is not to be run
  npu::slot_job job;
};

class evaluation_service {
 public:
  // `slots` is not null; `cache` may be null (every evaluation goes to the device). `options`
  // are the checking options of every evaluation (the cache key includes them).
  evaluation_service(std::shared_ptr<npu::device_slots> slots, std::shared_ptr<eval_cache> cache,
                     npu::eval_options options);

  // Answers from the cache when it can, otherwise on a leased slot. An error when no slot could
  // give a result (see npu::device_slots::evaluate); every candidate failure is a result.
  result<evaluation> evaluate(const evaluation_call& call);

  // The cache lookup of evaluate() alone (a hit counts in cache_hits()); does not block on a
  // slot.
  evaluation_plan plan(const evaluation_call& call);

  // The evaluations answered from the cache so far.
  uint64_t cache_hits() const { return cache_hits_.load(); }
  const npu::eval_options& options() const { return options_; }
  std::string profile_id() const { return slots_->profile_id(); }

 private:
  const std::shared_ptr<npu::device_slots> slots_;
  const std::shared_ptr<eval_cache> cache_;
  const npu::eval_options options_;
  std::atomic<uint64_t> cache_hits_{0};
};

}  // namespace aopt::agent
