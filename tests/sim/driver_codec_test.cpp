// The byte writer streams a delivery in parts (driver_codec.hpp): the parts, put together, are
// the bytes the writer without a sink assembles, padding included; a refused part is reported.
// Decoded with bulk_bytes::viewed, the report's bulk bytes are views into the delivery, equal to
// the copied ones, and changing one copies it instead of writing into the delivery.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "npu/sim/runtime/driver_codec.hpp"
#include "npu/sim/runtime/driver_report.hpp"

namespace {

aopt::sim::run_report sample_report() {
  aopt::sim::run_report report;
  report.diagnostics = {"blockDim 8"};
  report.warnings = {"block 0: a read past the padding"};
  for (uint32_t set = 0; set < 2; ++set) {
    aopt::sim::set_report s;
    s.block_dim = 8 + set;
    s.tiling_key = 3;
    s.tiling_data_size = 5;
    s.tiling_bytes = {1, 2, 3, 4, 5, 0xA5, 0xA5, 0xA5};
    s.outputs.emplace_back(3000 + set, static_cast<uint8_t>(7 + set));  // a large block
    s.outputs.emplace_back(3, uint8_t{9});                              // a small one
    s.input_fingerprints = {11, 12};
    s.changed_inputs.resize(2);
    aopt::sim::core_trace trace;
    trace.block_idx = set;
    trace.gm_write_bytes = 64;
    aopt::sim::gm_write write;
    write.region = 2;
    write.burst_bytes = 64;
    write.instruction = 40 + set;
    write.data = aopt::sim::byte_block(64, static_cast<uint8_t>(20 + set));
    trace.gm_writes.push_back(write);
    s.traces.push_back(trace);
    report.sets.push_back(s);
  }
  return report;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("a streamed delivery is, part by part, the assembled one, and it decodes") {
    const aopt::sim::run_report report = sample_report();
    const std::string assembled = aopt::sim::encode_report(report);
    for (size_t flush_at : {size_t{1}, size_t{7}, size_t{64}, size_t{1} << 20}) {
      CAPTURE(flush_at);
      std::vector<std::string> parts;
      aopt::sim::byte_writer streamed(
          [&](const char* data, size_t size) {
            parts.emplace_back(data, size);
            return true;
          },
          flush_at);
      aopt::sim::encode_report(report, streamed);
      CHECK(streamed.flush());
      CHECK(streamed.text().empty());
      std::string joined;
      for (const auto& p : parts) joined += p;
      CHECK(joined == assembled);
      // Below the size of the large output, it goes out as one part of its own.
      if (flush_at > 1 && flush_at <= 3000) {
        bool whole = false;
        for (const auto& p : parts) whole = whole || p == std::string(3000, '\7');
        CHECK(whole);
      }
    }
    const aopt::sim::run_report back = aopt::sim::decode_report(assembled);
    REQUIRE(back.sets.size() == 2);
    CHECK(back.sets[1].outputs[0] == report.sets[1].outputs[0]);
    CHECK(back.sets[1].block_dim == 9);
    // The instruction that made a GM access travels with it (the race detectors order by it).
    REQUIRE(back.sets[1].traces[0].gm_writes.size() == 1);
    CHECK(back.sets[1].traces[0].gm_writes[0].instruction == 41);
  }

  TEST_CASE("padding counts the bytes already sent, and a refused part fails the flush") {
    aopt::sim::byte_writer whole;
    std::string sent;
    aopt::sim::byte_writer streamed(
        [&](const char* data, size_t size) {
          sent.append(data, size);
          return true;
        },
        4);
    for (auto* w : {&whole, &streamed}) {
      w->put<uint8_t>(1);
      w->put<uint32_t>(2);  // 5 bytes: the streamed writer has sent 4 or more
      w->pad_to(8);
      w->put<uint8_t>(3);
    }
    CHECK(streamed.flush());
    CHECK(sent == whole.text());
    CHECK(sent.size() == 9);

    int calls = 0;
    aopt::sim::byte_writer refused(
        [&](const char*, size_t) {
          ++calls;
          return false;
        },
        2);
    refused.put<uint32_t>(1);
    refused.put<uint32_t>(2);
    CHECK_FALSE(refused.flush());
    CHECK(calls == 1);  // nothing more is offered once a part was refused
  }

  TEST_CASE("a viewed decode points into the delivery; a change copies, never writes into it") {
    const aopt::sim::run_report report = sample_report();
    const std::string delivery = aopt::sim::encode_report(report);
    const auto inside = [&](const aopt::sim::byte_block& b) {
      const auto* at = reinterpret_cast<const char*>(b.data());
      return b.is_view() && at >= delivery.data() &&
             at + b.size() <= delivery.data() + delivery.size();
    };
    const aopt::sim::run_report copied = aopt::sim::decode_report(delivery);
    aopt::sim::run_report viewed =
        aopt::sim::decode_report(delivery, aopt::sim::bulk_bytes::viewed);
    REQUIRE(viewed.sets.size() == 2);
    for (size_t set = 0; set < 2; ++set) {
      CAPTURE(set);
      const auto& v = viewed.sets[set];
      const auto& c = copied.sets[set];
      REQUIRE(v.outputs.size() == 2);
      for (size_t i = 0; i < 2; ++i) {
        CHECK(inside(v.outputs[i]));
        CHECK_FALSE(c.outputs[i].is_view());
        CHECK(v.outputs[i] == c.outputs[i]);
        CHECK(v.outputs[i] == report.sets[set].outputs[i]);
      }
      REQUIRE(v.traces.size() == 1);
      REQUIRE(v.traces[0].gm_writes.size() == 1);
      CHECK(inside(v.traces[0].gm_writes[0].data));
      CHECK(v.traces[0].gm_writes[0].data == report.sets[set].traces[0].gm_writes[0].data);
    }
    const std::string before = delivery;
    aopt::sim::byte_block& output = viewed.sets[0].outputs[0];
    output.mutable_bytes()[0] ^= 0xFF;
    CHECK_FALSE(output.is_view());
    CHECK(output[0] == (7 ^ 0xFF));
    CHECK(delivery == before);
    CHECK_FALSE(output == copied.sets[0].outputs[0]);
  }
}
