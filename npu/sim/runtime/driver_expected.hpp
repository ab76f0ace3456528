// The reference side of an evaluation (issue 17): the operator's reference.cpp runs in its own
// process (driver_reference_main.cpp), never in the candidate's, so a candidate cannot read the
// expected outputs. Per input set it reads the inputs aopt drew for the candidates, or draws them
// from the seed (input_generator.hpp),
// computes the expected outputs and fingerprints the inputs; driver_judge.hpp compares the
// candidate's delivery with this.
//
// Wire format (driver_codec.hpp): "AOPTEXP2", failure message ("" when none), zeros to a
// multiple of 8 bytes (so that a mapped delivery's doubles are aligned), sets, "AOPTEND1".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "aopt/reference.h"
#include "driver_spec.hpp"

namespace aopt::sim {

struct expected_set {
  std::vector<std::vector<double>> outputs;  // op.json order; empty when viewed
  // view_expected only: each output's values where the mapped delivery holds them.
  std::vector<const double*> viewed;
  std::vector<uint64_t> input_fingerprints;

  // Output i's values (op.json's numel of them), wherever they are.
  const double* values(size_t i) const { return viewed.empty() ? outputs[i].data() : viewed[i]; }
};

struct expected_outputs {
  std::string failure;  // the reference threw or returned the wrong sizes; no sets then
  std::vector<expected_set> sets;
  // Where the GM bytes of input set 0 (make_inputs) are, held beside the expected outputs by the
  // process that judges (which keeps them alive), so that replaying the timed set's GM reads
  // (gm_read_check.hpp) draws nothing. Not on the wire; empty when the judge should draw them.
  std::vector<const uint8_t*> first_set_inputs;
};

using reference_fn = void (*)(const aopt_ref::tensors& in, aopt_ref::tensors& out,
                              const aopt_ref::attrs& attrs);

// Input set `set` of `op`: the GM bytes of every input (seed op.seed + set).
std::vector<std::vector<uint8_t>> make_inputs(const npu::op_spec& op, uint32_t set);
// The same bytes, every input back to back in op.json order (shared_inputs.hpp's layout).
void make_inputs_into(const npu::op_spec& op, uint32_t set, uint8_t* out);

aopt_ref::attrs reference_attrs(const npu::op_spec& op);

// Input set `set`'s GM bytes as a process received them (inputs_of, shared_inputs.hpp).
using input_source = std::function<std::vector<std::vector<uint8_t>>(uint32_t set)>;

// Runs the reference on input sets 0..sets-1, drawn by make_inputs unless `inputs` gives them
// (the input store's sealed sets, the very bytes the candidates read). Never throws for a
// failing reference: `failure`.
expected_outputs compute_expected(const npu::op_spec& op, reference_fn reference, uint32_t sets,
                                  const input_source& inputs = nullptr);

std::string encode_expected(const expected_outputs& e);
// Throws malformed_delivery naming the field.
expected_outputs decode_expected(std::string_view bytes, const npu::op_spec& op);
// The same, with each output's values left where `bytes` holds them (expected_set::viewed): no
// copy of what is hundreds of MiB for a large operator. REQUIRES: `bytes` outlives the result.
expected_outputs view_expected(std::string_view bytes, const npu::op_spec& op);
// Checks every field of a delivery as decode_expected does, without copying the values out (the
// parent keeps the delivery as it is, for the judge). Throws malformed_delivery naming the field.
void check_expected(std::string_view bytes, const npu::op_spec& op);

}  // namespace aopt::sim
