#include "driver_report.hpp"

#include <map>

// Header-only: candidates link this library without libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "driver_codec.hpp"

namespace aopt::sim {
namespace {

constexpr char report_magic[] = "AOPTRPT6";
constexpr char end_magic[] = "AOPTEND1";
constexpr size_t magic_size = 8;
// Bounds that no honest run comes near; they keep a hostile count from exhausting memory.
constexpr uint64_t max_ranges = 1u << 20;
constexpr uint64_t max_ub_carves = 1u << 16;

void put_runs(byte_writer& w, const gm_runs& g) {
  w.put(g.region);
  w.put(g.offset);
  w.put(g.stride);
  w.put(g.burst_bytes);
  w.put(g.bursts);
  w.put(g.seq);
  w.put(g.instruction);
}

void get_runs(byte_reader& r, gm_runs& g) {
  g.region = r.get<uint32_t>("gm_runs.region");
  g.offset = r.get<uint64_t>("gm_runs.offset");
  g.stride = r.get<uint64_t>("gm_runs.stride");
  g.burst_bytes = r.get<uint32_t>("gm_runs.burst_bytes");
  g.bursts = r.get<uint32_t>("gm_runs.bursts");
  g.seq = r.get<uint64_t>("gm_runs.seq");
  g.instruction = r.get<uint32_t>("gm_runs.instruction");
}

void put_ranges(byte_writer& w, const std::vector<ub_range>& ranges) {
  w.put<uint64_t>(ranges.size());
  for (const ub_range& r : ranges) {
    w.put(r.begin);
    w.put(r.end);
  }
}

std::vector<ub_range> get_ranges(byte_reader& r, const char* field) {
  const uint64_t n = r.count(field, 8);
  if (n > max_ranges) throw malformed_delivery(std::string(field) + ": too many ranges");
  std::vector<ub_range> out(n);
  for (ub_range& u : out) {
    u.begin = r.get<uint32_t>(field);
    u.end = r.get<uint32_t>(field);
  }
  return out;
}

void put_indices(byte_writer& w, const std::vector<uint32_t>& v) {
  w.put<uint64_t>(v.size());
  for (uint32_t x : v) w.put(x);
}

std::vector<uint32_t> get_indices(byte_reader& r, const char* field) {
  std::vector<uint32_t> v(r.count(field, 4));
  for (uint32_t& x : v) x = r.get<uint32_t>(field);
  return v;
}

class api_table {
 public:
  uint32_t id(const char* name) {
    auto [it, added] = ids_.emplace(name == nullptr ? "" : name, names_.size());
    if (added) names_.push_back(it->first);
    return it->second;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::map<std::string, uint32_t> ids_;
  std::vector<std::string> names_;
};

void put_trace(byte_writer& w, const core_trace& t, api_table& apis) {
  w.put(t.block_idx);
  w.put(static_cast<uint8_t>(t.kind));
  w.put(t.group);
  w.put(t.ub_high_water_bytes);
  w.put<uint64_t>(t.ub_carves.size());
  for (const ub_carve& c : t.ub_carves) {
    w.put(c.line);
    w.put(c.buffers);
    w.put(c.bytes_each);
  }
  w.put(t.gm_read_bytes);
  w.put(t.gm_write_bytes);
  w.put<uint64_t>(t.instructions.size());
  for (const instruction& in : t.instructions) {
    w.put(static_cast<uint8_t>(in.on));
    w.put(static_cast<uint8_t>(in.cls));
    w.put<uint8_t>(in.all_pipes_barrier);
    w.put<uint8_t>(in.gm_unaligned);
    w.put<uint8_t>(in.accumulates);
    w.put(apis.id(in.api));
    w.put(in.line);
    w.put(in.bytes);
    w.put(in.repeats);
    w.put(in.bursts);
    w.put(in.min_burst_bytes);
    w.put(in.count);
    put_ranges(w, in.reads);
    put_ranges(w, in.writes);
    put_indices(w, in.deps);
    put_indices(w, in.auto_deps);
    w.put<uint8_t>(in.on_group_cube);
    w.put<uint64_t>(in.signals.size());
    for (uint64_t x : in.signals) w.put(x);
  }
  w.put<uint64_t>(t.gm_writes.size());
  for (const gm_write& g : t.gm_writes) {
    put_runs(w, g);
    w.put_bytes(g.data.data(), g.data.size());
  }
  w.put<uint64_t>(t.gm_reads.size());
  for (const gm_read& g : t.gm_reads) {
    put_runs(w, g);
    w.put(g.digest);
  }
}

// A length-prefixed run of bytes, copied or viewed where the delivery holds it.
byte_block get_block(byte_reader& r, const char* field, bulk_bytes bulk) {
  const uint64_t n = r.count(field, 1);
  const uint8_t* bytes = r.view_array<uint8_t>(n, field);
  return bulk == bulk_bytes::viewed ? byte_block::view(bytes, n) : byte_block(bytes, bytes + n);
}

// API names are patched in once the table (at the end of the delivery) is read.
core_trace get_trace(byte_reader& r, std::vector<std::vector<uint32_t>>& api_ids, bulk_bytes bulk) {
  core_trace t;
  t.block_idx = r.get<uint32_t>("trace.block_idx");
  const auto kind = r.get<uint8_t>("trace.kind");
  if (kind > static_cast<uint8_t>(core_kind::aiv)) throw malformed_delivery("trace.kind: unknown");
  t.kind = static_cast<core_kind>(kind);
  t.group = r.get<uint32_t>("trace.group");
  t.ub_high_water_bytes = r.get<uint64_t>("trace.ub_high_water_bytes");
  const uint64_t carves = r.count("trace.ub_carves", 16);
  if (carves > max_ub_carves) throw malformed_delivery("trace.ub_carves: too many carves");
  t.ub_carves.resize(carves);
  for (ub_carve& c : t.ub_carves) {
    c.line = r.get<uint32_t>("ub_carve.line");
    c.buffers = r.get<uint32_t>("ub_carve.buffers");
    c.bytes_each = r.get<uint64_t>("ub_carve.bytes_each");
  }
  t.gm_read_bytes = r.get<uint64_t>("trace.gm_read_bytes");
  t.gm_write_bytes = r.get<uint64_t>("trace.gm_write_bytes");
  const uint64_t n = r.count("trace.instructions", 72);
  t.instructions.resize(n);
  api_ids.emplace_back();
  api_ids.back().reserve(n);
  for (instruction& in : t.instructions) {
    const auto on = r.get<uint8_t>("instruction.pipe");
    const auto cls = r.get<uint8_t>("instruction.class");
    if (on >= pipe_count) throw malformed_delivery("instruction.pipe: unknown pipe");
    if (cls > static_cast<uint8_t>(last_op_class)) {
      throw malformed_delivery("instruction.class: unknown class");
    }
    in.on = static_cast<pipe>(on);
    in.cls = static_cast<op_class>(cls);
    in.all_pipes_barrier = r.get<uint8_t>("instruction.barrier") != 0;
    in.gm_unaligned = r.get<uint8_t>("instruction.gm_unaligned") != 0;
    in.accumulates = r.get<uint8_t>("instruction.accumulates") != 0;
    api_ids.back().push_back(r.get<uint32_t>("instruction.api"));
    in.line = r.get<uint32_t>("instruction.line");
    in.bytes = r.get<uint64_t>("instruction.bytes");
    in.repeats = r.get<uint32_t>("instruction.repeats");
    in.bursts = r.get<uint32_t>("instruction.bursts");
    in.min_burst_bytes = r.get<uint32_t>("instruction.min_burst_bytes");
    in.count = r.get<uint64_t>("instruction.count");
    in.reads = get_ranges(r, "instruction.reads");
    in.writes = get_ranges(r, "instruction.writes");
    in.deps = get_indices(r, "instruction.deps");
    in.auto_deps = get_indices(r, "instruction.auto_deps");
    in.on_group_cube = r.get<uint8_t>("instruction.on_group_cube") != 0;
    in.signals.resize(r.count("instruction.signals", 8));
    for (uint64_t& x : in.signals) x = r.get<uint64_t>("instruction.signal");
  }
  t.gm_writes.resize(r.count("trace.gm_writes", 48));
  for (gm_write& g : t.gm_writes) {
    get_runs(r, g);
    g.data = get_block(r, "gm_write.data", bulk);
  }
  t.gm_reads.resize(r.count("trace.gm_reads", 48));
  for (gm_read& g : t.gm_reads) {
    get_runs(r, g);
    g.digest = r.get<uint64_t>("gm_read.digest");
  }
  return t;
}

}  // namespace

uint64_t fingerprint(const uint8_t* data, size_t n) {
  // XXH3 reads a word per cycle where a byte-wise hash took one per multiply: fingerprinting
  // every input after every set was a tenth of a candidate process. Candidate and checker both
  // compute it with this function, so only equality matters, never the value.
  return XXH3_64bits(data, n);
}

void encode_report(const run_report& report, byte_writer& w) {
  api_table apis;
  w.put_raw(report_magic, magic_size);
  w.put<uint64_t>(report.diagnostics.size());
  for (const auto& d : report.diagnostics) w.put_string(d);
  w.put<uint64_t>(report.warnings.size());
  for (const auto& d : report.warnings) w.put_string(d);
  w.put<uint64_t>(report.sets.size());
  for (const set_report& s : report.sets) {
    w.put_string(s.failed_status);
    w.put_string(s.failed_kind);
    w.put_string(s.message);
    w.put(s.block_dim);
    w.put(s.aiv_per_aic);
    w.put(s.tiling_key);
    w.put(s.workspace_bytes);
    w.put(s.tiling_data_size);
    w.put_bytes(s.tiling_bytes.data(), s.tiling_bytes.size());
    w.put<uint64_t>(s.outputs.size());
    for (const auto& o : s.outputs) w.put_bytes(o.data(), o.size());
    w.put<uint64_t>(s.input_fingerprints.size());
    for (uint64_t f : s.input_fingerprints) w.put(f);
    w.put<uint64_t>(s.changed_inputs.size());
    for (const auto& c : s.changed_inputs) w.put_bytes(c.data(), c.size());
    w.put<uint64_t>(s.traces.size());
    for (const core_trace& t : s.traces) put_trace(w, t, apis);
  }
  w.put<uint64_t>(apis.names().size());
  for (const auto& name : apis.names()) w.put_string(name);
  w.put_raw(end_magic, magic_size);
}

std::string encode_report(const run_report& report) {
  // Reserved once, generously: the outputs alone are hundreds of MiB for a large operator, and
  // growing the text by doubling would copy them at every step (untouched room costs nothing).
  size_t bytes = 1 << 16;
  for (const set_report& s : report.sets) {
    for (const auto& o : s.outputs) bytes += o.size() + sizeof(uint64_t);
    for (const auto& c : s.changed_inputs) bytes += c.size() + sizeof(uint64_t);
    for (const core_trace& t : s.traces) bytes += 256 * (t.instructions.size() + 1);
  }
  byte_writer w;
  w.reserve(bytes);
  encode_report(report, w);
  return std::move(w.text());
}

run_report decode_report(std::string_view bytes, bulk_bytes bulk) {
  byte_reader r(bytes.data(), bytes.size());
  r.expect(report_magic, magic_size, "report header");
  run_report out;
  out.diagnostics.resize(r.count("diagnostics", 8));
  for (auto& d : out.diagnostics) d = r.get_string("diagnostic");
  out.warnings.resize(r.count("warnings", 8));
  for (auto& d : out.warnings) d = r.get_string("warning");
  // The API ids of every decoded trace, per trace, resolved against the table at the end.
  std::vector<std::vector<uint32_t>> api_ids;
  std::vector<core_trace*> traces;
  out.sets.resize(r.count("sets", 64));
  for (set_report& s : out.sets) {
    s.failed_status = r.get_string("set.failed_status");
    s.failed_kind = r.get_string("set.failed_kind");
    s.message = r.get_string("set.message");
    s.block_dim = r.get<uint32_t>("set.block_dim");
    s.aiv_per_aic = r.get<uint32_t>("set.aiv_per_aic");
    s.tiling_key = r.get<uint64_t>("set.tiling_key");
    s.workspace_bytes = r.get<uint64_t>("set.workspace_bytes");
    s.tiling_data_size = r.get<uint64_t>("set.tiling_data_size");
    s.tiling_bytes = r.get_bytes("set.tiling_bytes");
    s.outputs.resize(r.count("set.outputs", 8));
    for (auto& o : s.outputs) o = get_block(r, "set.output", bulk);
    s.input_fingerprints.resize(r.count("set.input_fingerprints", 8));
    for (uint64_t& f : s.input_fingerprints) f = r.get<uint64_t>("set.input_fingerprint");
    s.changed_inputs.resize(r.count("set.changed_inputs", 8));
    for (auto& c : s.changed_inputs) c = get_block(r, "set.changed_input", bulk);
    s.traces.resize(r.count("set.traces", 40));
    for (core_trace& t : s.traces) t = get_trace(r, api_ids, bulk);
    for (core_trace& t : s.traces) traces.push_back(&t);
  }
  const uint64_t names = r.count("api names", 8);
  for (uint64_t i = 0; i < names; ++i) out.api_names.push_back(r.get_string("api name"));
  for (size_t t = 0; t < traces.size(); ++t) {
    for (size_t i = 0; i < traces[t]->instructions.size(); ++i) {
      const uint32_t id = api_ids[t][i];
      if (id >= out.api_names.size()) throw malformed_delivery("instruction.api: unknown name");
      traces[t]->instructions[i].api = out.api_names[id].c_str();
    }
  }
  r.expect(end_magic, magic_size, "report end marker");
  if (r.remaining() != 0) {
    throw malformed_delivery("report: " + std::to_string(r.remaining()) +
                             " bytes after the end marker");
  }
  return out;
}

}  // namespace aopt::sim
