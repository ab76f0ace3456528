#include "tiling_probe_report.hpp"

#include <algorithm>

#include "driver_codec.hpp"

namespace aopt::sim {
namespace {

constexpr char probe_magic[] = "AOPTPRB1";
constexpr char end_magic[] = "AOPTEND1";
constexpr size_t magic_bytes = 8;

}  // namespace

std::string encode_tiling_probe(const tiling_call& call) {
  byte_writer w;
  w.put_raw(probe_magic, magic_bytes);
  w.put_string(call.exception);
  w.put<uint32_t>(call.status);
  w.put<uint32_t>(call.block_dim);
  w.put<uint64_t>(call.tiling_key);
  w.put<uint64_t>(call.workspace_bytes);
  w.put<uint64_t>(call.data_size);
  const size_t delivered = std::min<uint64_t>(call.data_size, call.data.size());
  w.put_bytes(call.data.data(), delivered);
  w.put_raw(end_magic, magic_bytes);
  return std::move(w.text());
}

tiling_call decode_tiling_probe(const std::string& bytes) {
  byte_reader r(bytes.data(), bytes.size());
  r.expect(probe_magic, magic_bytes, "probe header");
  tiling_call call;
  call.exception = r.get_string("exception");
  call.status = r.get<uint32_t>("status");
  call.block_dim = r.get<uint32_t>("block_dim");
  call.tiling_key = r.get<uint64_t>("tiling_key");
  call.workspace_bytes = r.get<uint64_t>("workspace_bytes");
  call.data_size = r.get<uint64_t>("data_size");
  call.data = r.get_bytes("tiling data");
  if (call.data.size() > call.data_size) {
    throw malformed_delivery("tiling data: more bytes than the data size announced");
  }
  r.expect(end_magic, magic_bytes, "probe end");
  if (r.remaining() != 0) throw malformed_delivery("probe end: bytes after the end mark");
  return call;
}

}  // namespace aopt::sim
