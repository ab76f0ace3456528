// The trusted checker's reading of a delivery, on hand-made deliveries: a truncated or padded
// one is malformed, a trace that does not account for correct outputs is untraced work, an
// inconsistent record is a malformed trace; a consistent one passes.
#include <cstdio>
#include <cstring>

#include <doctest/doctest.h>

#include "npu/sim/runtime/driver_codec.hpp"
#include "npu/sim/runtime/driver_expected.hpp"
#include "npu/sim/runtime/driver_judge.hpp"
#include "npu/sim/runtime/driver_report.hpp"
#include "npu/sim/runtime/driver_trace_check.hpp"
#include "npu/sim/runtime/roofline.hpp"

using namespace aopt::sim;

namespace {

// z = x for 64 float32 values on one core: the operator of the hand-made deliveries.
driver_spec copy_spec(const char* category, uint32_t input_sets = 1) {
  return parse_driver_spec(
      {{"op",
        {{"name", "copy"},
         {"category", category},
         {"inputs", {{{"name", "x"}, {"dtype", "float32"}, {"shape", {64}}}}},
         {"outputs", {{{"name", "z"}, {"dtype", "float32"}, {"shape", {64}}}}}}},
       {"input_sets", input_sets}});
}

instruction dma(op_class cls, ub_range r) {
  instruction in;
  in.on = cls == op_class::dma_in ? pipe::mte2 : pipe::mte3;
  in.cls = cls;
  in.api = "DataCopy";
  in.bytes = r.end - r.begin;
  in.bursts = 1;
  in.min_burst_bytes = static_cast<uint32_t>(in.bytes);
  (cls == op_class::dma_in ? in.writes : in.reads).push_back(r);
  return in;
}

instruction vec(ub_range read, ub_range write) {
  instruction in;
  in.on = pipe::v;
  in.cls = op_class::vec_simple;
  in.api = "Muls";
  in.bytes = write.end - write.begin;
  in.repeats = 1;
  in.reads = {read};
  in.writes = {write};
  return in;
}

// A traced write of `data` to z (region 1) at `offset`, the seq-th write of the launch.
gm_write output_write(uint64_t offset, byte_block data, uint64_t seq = 0) {
  gm_write w;
  w.region = 1;
  w.offset = offset;
  w.burst_bytes = static_cast<uint32_t>(data.size());
  w.bursts = 1;
  w.seq = seq;
  w.data = std::move(data);
  return w;
}

// x in, `middle` (if any), z out from `out_from`, with the GM write recorded.
set_report honest_set(const driver_spec& spec, bool compute, uint32_t set = 0) {
  set_report s;
  s.block_dim = 1;
  const auto inputs = make_inputs(spec.op, set);
  s.input_fingerprints = {fingerprint(inputs[0].data(), inputs[0].size())};
  s.outputs = {inputs[0]};
  core_trace t;
  t.instructions.push_back(dma(op_class::dma_in, {0, 256}));
  ub_range out = {0, 256};
  if (compute) {
    t.instructions.push_back(vec({0, 256}, {256, 512}));
    t.instructions[1].deps = {0};
    out = {256, 512};
  }
  t.instructions.push_back(dma(op_class::dma_out, out));
  t.instructions.back().deps = {static_cast<uint32_t>(t.instructions.size() - 2)};
  t.gm_read_bytes = 256;
  t.gm_write_bytes = 256;
  t.gm_writes = {output_write(0, s.outputs[0])};
  s.traces = {t};
  return s;
}

std::string kind_of(const driver_spec& spec, const set_report& s) {
  auto f = check_set_trace(spec, s, true);
  return f ? f->kind : "";
}

}  // namespace

TEST_SUITE("adversarial") {
  TEST_CASE("a delivery that is truncated, padded or forged from scratch is malformed") {
    const driver_spec spec = copy_spec("data_movement");
    run_report report;
    report.sets.push_back(honest_set(spec, false));
    const std::string bytes = encode_report(report);
    CHECK(decode_report(bytes).sets.at(0).traces.at(0).instructions.size() == 2);
    CHECK(std::string(decode_report(bytes).sets[0].traces[0].instructions[0].api) == "DataCopy");
    CHECK_THROWS_AS(decode_report(bytes.substr(0, bytes.size() - 3)), malformed_delivery);
    CHECK_THROWS_AS(decode_report(bytes + "AOPTEND1"), malformed_delivery);
    CHECK_THROWS_AS(decode_report(""), malformed_delivery);
    // Many small records at the very end (GM writes) decode: counts are bounded by record size.
    run_report many = report;
    many.sets[0].traces[0].gm_writes.assign(69, output_write(0, {1, 2, 3, 4}));
    CHECK(decode_report(encode_report(many)).sets[0].traces[0].gm_writes.size() == 69);
    CHECK_THROWS_AS(decode_report("{\"status\": \"ok\", \"latency_us\": -5}"), malformed_delivery);
    // A count announcing more than the delivery holds is refused before anything is allocated.
    std::string huge = bytes;
    const uint64_t absurd = uint64_t{1} << 60;
    std::memcpy(&huge[8], &absurd, sizeof absurd);
    CHECK_THROWS_WITH_AS(decode_report(huge), doctest::Contains("more than the delivery holds"),
                         malformed_delivery);
  }

  TEST_CASE("a consistent trace passes; one that does not account for the outputs does not") {
    const driver_spec copy = copy_spec("data_movement");
    const driver_spec compute = copy_spec("elementwise");
    CHECK(kind_of(copy, honest_set(copy, false)) == "");
    CHECK(kind_of(compute, honest_set(compute, true)) == "");

    set_report raw = honest_set(compute, true);  // outputs written through a raw pointer
    raw.traces[0].gm_writes.clear();
    raw.traces[0].gm_write_bytes = 0;
    CHECK(kind_of(compute, raw) == "untraced_work");

    set_report partial = honest_set(compute, true);  // half of z written by a raw pointer
    partial.traces[0].gm_writes[0].burst_bytes = 128;
    partial.traces[0].gm_writes[0].data.mutable_bytes().resize(128);
    partial.traces[0].gm_write_bytes = 128;
    CHECK(kind_of(compute, partial) == "untraced_work");

    // The input copied straight back out while the operator computes: the computation was done
    // on the UB bytes through a raw pointer.
    CHECK(kind_of(compute, honest_set(compute, false)) == "untraced_work");
    // ... unless the copy out accumulates (SetAtomicAdd): the add is the computation, as in
    // every scatter-add kernel that copies gathered input rows into its output atomically.
    set_report accumulated = honest_set(compute, false);
    accumulated.traces[0].instructions[1].accumulates = true;
    CHECK(kind_of(compute, accumulated) == "");
    // The flag survives the delivery's encoding.
    run_report delivered;
    delivered.sets.push_back(accumulated);
    CHECK(decode_report(encode_report(delivered)).sets[0].traces[0].instructions[1].accumulates);

    set_report unwritten = honest_set(compute, true);  // z's UB bytes filled behind the trace
    unwritten.traces[0].instructions[1].writes = {{1024, 1280}};
    CHECK(kind_of(compute, unwritten) == "untraced_work");
  }

  TEST_CASE("inconsistent trace records are a malformed trace") {
    const driver_spec spec = copy_spec("data_movement");
    set_report s = honest_set(spec, false);
    s.traces[0].gm_writes[0].offset = 200;  // past z's 256 bytes
    CHECK(kind_of(spec, s) == "malformed_trace");
    s = honest_set(spec, false);
    s.traces[0].instructions[0].deps = {1};
    CHECK(kind_of(spec, s) == "malformed_trace");
    s = honest_set(spec, false);
    s.traces[0].instructions[0].writes = {{0, 1u << 30}};
    CHECK(kind_of(spec, s) == "malformed_trace");
    s = honest_set(spec, false);
    s.traces[0].gm_write_bytes = 4096;  // bytes the listed writes do not hold
    CHECK(kind_of(spec, s) == "malformed_trace");
    s = honest_set(spec, false);
    s.block_dim = 2;
    CHECK(kind_of(spec, s) == "malformed_trace");
  }

  TEST_CASE("a MIX launch's traces must be one AIC and its AIVs per group, in order") {
    const driver_spec spec = copy_spec("elementwise");
    set_report s = honest_set(spec, true);
    // A claim of MIX with one trace per block is short of the groups' AIVs.
    s.aiv_per_aic = 2;
    CHECK(kind_of(spec, s) == "malformed_trace");
    // Three traces of whole cores are not an AIC and two AIVs.
    core_trace aiv0 = s.traces[0];
    aiv0.block_idx = 1;
    core_trace aiv1 = s.traces[0];
    aiv1.block_idx = 2;
    s.traces.push_back(aiv0);
    s.traces.push_back(aiv1);
    CHECK(kind_of(spec, s) == "malformed_trace");
    // More than two AIVs per AIC is no MIX type.
    s.aiv_per_aic = 3;
    CHECK(kind_of(spec, s) == "malformed_trace");
  }

  TEST_CASE("the delivered outputs must equal what the traced writes left, replayed in order") {
    const driver_spec compute = copy_spec("elementwise");
    // A raw store after the traced write changes one byte: untraced work naming the byte.
    set_report changed = honest_set(compute, true);
    changed.outputs[0].mutable_bytes()[17] ^= 0x40;
    auto f = check_set_trace(compute, changed, true);
    REQUIRE(f.has_value());
    CHECK(f->kind == "untraced_work");
    CHECK(f->message.find("byte 17") != std::string::npos);
    CHECK(f->message.find("changed after the traced API wrote it") != std::string::npos);
    // Not only on the timed set: every input set's writes are replayed.
    CHECK(check_set_trace(compute, changed, false).has_value());

    // Two blocks write the same bytes; the later write (by seq) is what the output holds.
    driver_spec two = compute;
    set_report s = honest_set(two, true);
    s.block_dim = 2;
    core_trace second = s.traces[0];
    second.block_idx = 1;
    std::vector<uint8_t> stale(256, 0x11);
    s.traces[0].gm_writes = {output_write(0, s.outputs[0], 7)};
    second.gm_writes = {output_write(0, stale, 3)};  // block 1 ran first (SyncAll order)
    s.traces.push_back(second);
    CHECK(kind_of(two, s) == "");
    std::swap(s.traces[0].gm_writes[0].seq, s.traces[1].gm_writes[0].seq);
    CHECK(kind_of(two, s) == "untraced_work");  // the replay leaves 0x11, z holds the result

    // A write whose data does not match its size is a malformed record.
    set_report short_data = honest_set(compute, true);
    short_data.traces[0].gm_writes[0].data.mutable_bytes().resize(100);
    CHECK(kind_of(compute, short_data) == "malformed_trace");
  }

  TEST_CASE(
      "partial input reads and constant fills around scalar results pass; raw work does not") {
    const driver_spec compute = copy_spec("elementwise");
    // Reads only half of x (the rows the operator needs) and computes z from it.
    set_report half_read = honest_set(compute, true);
    half_read.traces[0].instructions[0] = dma(op_class::dma_in, {0, 128});
    half_read.traces[0].gm_read_bytes = 128;
    CHECK(kind_of(compute, half_read) == "");

    // A reduction: z's block is a Duplicate fill with the 4-byte result written over it; most
    // of the bytes copied out depend on no GM read, yet they are a constant the vector unit made.
    auto reduction = [&](bool fill) {
      set_report s = honest_set(compute, true);
      core_trace& t = s.traces[0];
      instruction dup;
      dup.on = pipe::v;
      dup.cls = op_class::vec_simple;
      dup.api = "Duplicate";
      dup.bytes = 256;
      dup.repeats = 1;
      dup.writes = {{256, 512}};
      instruction sum = vec({0, 256}, {256, 260});
      sum.api = "ReduceSum";
      sum.cls = op_class::vec_reduce;
      instruction set_value;  // the same bytes through scalar stores of nothing read
      set_value.on = pipe::s;
      set_value.cls = op_class::scalar_ub;
      set_value.api = "LocalTensor::SetValue";
      set_value.count = 64;
      set_value.bytes = 256;
      set_value.writes = {{256, 512}};
      t.instructions = {dma(op_class::dma_in, {0, 256}), fill ? dup : set_value, sum,
                        dma(op_class::dma_out, {256, 512})};
      t.instructions[2].deps = {0};
      t.instructions[3].deps = {2};
      return s;
    };
    CHECK(kind_of(compute, reduction(true)) == "");
    auto f = check_set_trace(compute, reduction(false), true);
    REQUIRE(f.has_value());
    CHECK(f->kind == "untraced_work");
    CHECK(f->message.find("252 of the 256 bytes") != std::string::npos);
  }

  TEST_CASE("scalar stores widening the derived values they read derive from GM; more do not") {
    const driver_spec compute = copy_spec("elementwise");
    // An argmax: a vector reduction leaves `derived_bytes` bytes of indices, the scalar unit
    // reads them and stores z's 256 bytes (uint16_t -> int32_t is twice the bytes it read).
    auto widened = [&](uint32_t derived_bytes) {
      set_report s = honest_set(compute, true);
      core_trace& t = s.traces[0];
      instruction reduce = vec({0, 256}, {256, 256 + derived_bytes});
      reduce.api = "WholeReduceMax";
      reduce.cls = op_class::vec_reduce;
      instruction scalar;
      scalar.on = pipe::s;
      scalar.cls = op_class::scalar_ub;
      scalar.api = "LocalTensor::SetValue";
      scalar.count = 128;
      scalar.bytes = 256 + derived_bytes;
      scalar.reads = {{256, 256 + derived_bytes}};
      scalar.writes = {{512, 768}};
      t.instructions = {dma(op_class::dma_in, {0, 256}), reduce, scalar,
                        dma(op_class::dma_out, {512, 768})};
      t.instructions[1].deps = {0};
      t.instructions[2].deps = {1};
      t.instructions[3].deps = {2};
      return s;
    };
    CHECK(kind_of(compute, widened(128)) == "");
    CHECK(kind_of(compute, widened(32)) == "");  // int8_t -> int64_t, the widest store
    // Four bytes read cannot carry 256 bytes of GM data: the rest is the scalar unit's own.
    auto f = check_set_trace(compute, widened(4), true);
    REQUIRE(f.has_value());
    CHECK(f->kind == "untraced_work");
    CHECK(f->message.find("depend on no GM read") != std::string::npos);
  }

  TEST_CASE("input bytes copied out unchanged by a computing operator name the category") {
    const driver_spec gather = copy_spec("gather");
    auto f = check_set_trace(gather, honest_set(gather, false), true);
    REQUIRE(f.has_value());
    CHECK(f->kind == "untraced_work");
    CHECK(f->message.find("category is \"gather\"") != std::string::npos);
    CHECK(f->message.find("\"category\": \"data_movement\"") != std::string::npos);
    const driver_spec moved = copy_spec("data_movement");
    CHECK(kind_of(moved, honest_set(moved, false)) == "");
  }

  TEST_CASE("an output that starts with contents keeps them where no traced write touched it") {
    driver_spec zeros = parse_driver_spec(
        {{"op",
          {{"name", "accumulate"},
           {"category", "elementwise"},
           {"inputs", {{{"name", "x"}, {"dtype", "float32"}, {"shape", {64}}}}},
           {"outputs",
            {{{"name", "z"}, {"dtype", "float32"}, {"shape", {64}}, {"init", "zeros"}}}}}},
         {"input_sets", 1}});
    // The kernel accumulates into the first half only; the second half stays zero.
    set_report half = honest_set(zeros, true);
    std::fill(half.outputs[0].mutable_bytes().begin() + 128, half.outputs[0].mutable_bytes().end(),
              uint8_t{0});
    half.traces[0].gm_writes = {output_write(
        0, std::vector<uint8_t>(half.outputs[0].begin(), half.outputs[0].begin() + 128))};
    half.traces[0].gm_write_bytes = 128;
    half.traces[0].instructions.back() = dma(op_class::dma_out, {256, 384});
    half.traces[0].instructions.back().deps = {1};
    const auto initial = initial_outputs(zeros.op, 0);
    CHECK_FALSE(check_set_trace(zeros, half, true, nullptr, &initial).has_value());
    // Without the initial contents, the second half was written by nothing traced.
    CHECK(kind_of(zeros, half) == "untraced_work");
    // A raw store into the untouched half is a change outside the trace.
    half.outputs[0].mutable_bytes()[200] = 1;
    auto f = check_set_trace(zeros, half, true, nullptr, &initial);
    REQUIRE(f.has_value());
    CHECK(f->message.find("byte 200") != std::string::npos);
  }

  TEST_CASE("instructions reading UB nothing traced wrote are warnings naming them") {
    const driver_spec compute = copy_spec("elementwise");
    set_report s = honest_set(compute, true);
    s.traces[0].instructions[1].reads = {{0, 288}};  // 32 bytes past what the copy wrote
    std::vector<std::string> warnings;
    CHECK_FALSE(check_set_trace(compute, s, true, &warnings).has_value());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("Muls (#1)") != std::string::npos);
    CHECK(warnings[0].find("reads 32 bytes of UB that no traced operation wrote") !=
          std::string::npos);
    warnings.clear();
    CHECK_FALSE(check_set_trace(compute, honest_set(compute, true), true, &warnings).has_value());
    CHECK(warnings.empty());
  }

  TEST_CASE("the judgement: missing sets, a trace without time and a claimed infra error") {
    const driver_spec spec = copy_spec("data_movement");
    const expected_outputs expected = compute_expected(
        spec.op,
        [](const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&) {
          out[0].data = in[0].data;
        },
        1);
    run_report report;
    CHECK(judge_run(spec, report, expected).result.error_kind == "no_delivery");
    report.sets.push_back(honest_set(spec, false));
    const aopt::npu::eval_result ok = judge_run(spec, report, expected).result;
    CHECK_MESSAGE(ok.status == aopt::npu::eval_status::ok, nlohmann::json(ok).dump(1));
    CHECK(ok.latency_us > 0);

    run_report claims = report;
    claims.sets[0].failed_status = "infra_error";  // a candidate cannot blame the machine
    claims.sets[0].message = "not my fault";
    CHECK(judge_run(spec, claims, expected).result.status == aopt::npu::eval_status::runtime_error);

    run_report modified = report;
    modified.sets[0].input_fingerprints[0] ^= 1;
    CHECK(judge_run(spec, modified, expected).result.error_kind == "input_modified");
  }

  TEST_CASE("sets checked on several threads give the sequential verdict: the lowest failing set") {
    const driver_spec spec = copy_spec("data_movement", 4);
    const expected_outputs expected = compute_expected(
        spec.op,
        [](const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&) {
          out[0].data = in[0].data;
        },
        4);
    run_report report;
    for (uint32_t set = 0; set < 4; ++set) report.sets.push_back(honest_set(spec, false, set));
    for (uint32_t threads : {1u, 4u}) {
      CHECK(judge_run(spec, report, expected, threads).result.status == aopt::npu::eval_status::ok);
    }
    report.sets[3].outputs[0].mutable_bytes()[0] ^= 0x40;  // set 3: a wrong output
    report.sets[1].input_fingerprints[0] ^= 1;             // set 1: a modified input
    const aopt::npu::eval_result one = judge_run(spec, report, expected, 1).result;
    const aopt::npu::eval_result four = judge_run(spec, report, expected, 4).result;
    CHECK(one.error_kind == "input_modified");
    CHECK(one.message.rfind("input set 1 ", 0) == 0);
    CHECK(four.error_kind == one.error_kind);
    CHECK(four.message == one.message);
  }

  TEST_CASE("the judge's roofline is the operator's: more or less traced work cannot move it") {
    const driver_spec spec = copy_spec("elementwise");
    const expected_outputs expected = compute_expected(
        spec.op,
        [](const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&) {
          out[0].data = in[0].data;
        },
        1);
    run_report honest;
    honest.sets.push_back(honest_set(spec, true));
    const aopt::npu::eval_result base = judge_run(spec, honest, expected).result;
    REQUIRE_MESSAGE(base.ok(), nlohmann::json(base).dump(1));
    // 200 more vector instructions of 64 repeats each: far more vector work than the bound's.
    run_report busy = honest;
    auto& trace = busy.sets[0].traces[0];
    for (int i = 0; i < 200; ++i) {
      instruction extra = vec({0, 256}, {512, 768});
      extra.repeats = 64;
      extra.deps = {0};
      trace.instructions.insert(trace.instructions.begin() + 2, extra);
    }
    trace.instructions.back().deps = {1};
    const aopt::npu::eval_result more = judge_run(spec, busy, expected).result;
    REQUIRE_MESSAGE(more.ok(), nlohmann::json(more).dump(1));
    CHECK(more.latency_us > base.latency_us);
    CHECK(more.roof.vector_bound_us == base.roof.vector_bound_us);
    CHECK(more.roof.bound_us == base.roof.bound_us);
    CHECK(more.roof.achieved_fraction < base.roof.achieved_fraction);
    CHECK(base.roof.achieved_fraction <= 1);
    // The same bound as the operator alone gives, whatever the run traced.
    CHECK(base.roof.bound_us == compute_roofline(spec.op, base.latency_us, spec.hw).bound_us);
  }

  TEST_CASE(
      "a delivery asking the judge for more work than its limit is the candidate's "
      "judge_limit") {
    const driver_spec spec = copy_spec("elementwise");
    const expected_outputs expected = compute_expected(
        spec.op,
        [](const aopt_ref::tensors& in, aopt_ref::tensors& out, const aopt_ref::attrs&) {
          out[0].data = in[0].data;
        },
        1);
    run_report honest;
    honest.sets.push_back(honest_set(spec, true));
    const aopt::npu::eval_result ok = judge_run(spec, honest, expected).result;
    REQUIRE(ok.ok());
    // The honest delivery's checker work, in the diagnostics, is far below the limit.
    uint64_t units = 0;
    uint64_t limit = 0;
    for (const std::string& d : ok.diagnostics) {
      if (d.rfind("checker work ", 0) == 0) {
        CHECK(std::sscanf(d.c_str(), "checker work %lu units (limit %lu)", &units, &limit) == 2);
      }
    }
    CHECK(units > 0);
    CHECK(units * 1000 < limit);
    // One vector instruction claiming to read 4 GiB of UB ten times: refused before any replay.
    run_report hostile = honest;
    hostile.sets[0].traces[0].instructions[1].reads.assign(10, ub_range{0, 0xffffffffU});
    const aopt::npu::eval_result r = judge_run(spec, hostile, expected).result;
    CHECK(r.status == aopt::npu::eval_status::runtime_error);
    CHECK(r.error_kind == "judge_limit");
    CHECK(r.message.find("units of work") != std::string::npos);
  }
}
