// The tiling-data macros: host code fills a class with set_<f>() and SaveToBuffer(); the kernel
// reads the same bytes back with GET_TILING_DATA and friends.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "register/tilingdata_base.h"

namespace optiling {

BEGIN_TILING_DATA_DEF(HostShimInnerTiling)
TILING_DATA_FIELD_DEF(uint16_t, rows);
TILING_DATA_FIELD_DEF(float, scale);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(HostShimTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint8_t, flag);
TILING_DATA_FIELD_DEF(int64_t, offset);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 4, tileLengths);
TILING_DATA_FIELD_DEF_STRUCT(HostShimInnerTiling, inner);
TILING_DATA_FIELD_DEF(float, alpha);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(HostShimOp, HostShimTilingData);

// Real tiling data accepts any field name, including the setter's usual parameter names.
BEGIN_TILING_DATA_DEF(HostShimCommonNames)
TILING_DATA_FIELD_DEF(float, value);
TILING_DATA_FIELD_DEF_ARR(uint32_t, 2, values);
TILING_DATA_FIELD_DEF_STRUCT(HostShimInnerTiling, data_type);
END_TILING_DATA_DEF;

}  // namespace optiling

// The newer style: a plain struct shared by host and kernel.
struct HostShimPlainTiling {
  uint32_t blockLength;
  uint16_t tileNum;
  double eps;
};

#include "aopt_sim/tiling_data.h"
#include "exe_graph/runtime/tiling_context.h"

namespace {

optiling::HostShimTilingData filled_tiling() {
  optiling::HostShimTilingData t;
  t.set_totalLength(123456);
  t.set_flag(7);
  t.set_offset(-5000000000LL);
  const uint32_t lengths[4] = {10, 20, 30, 40};
  t.set_tileLengths(lengths);
  t.inner.set_rows(99);
  t.inner.set_scale(0.25f);
  t.set_alpha(-1.5f);
  return t;
}

// What a kernel does: read the tiling argument with GET_TILING_DATA into a local copy.
optiling::HostShimTilingData kernel_reads(const uint8_t* tiling) {
  GET_TILING_DATA(tilingData, tiling);
  return tilingData;
}

}  // namespace

TEST_SUITE("sim") {
  TEST_CASE("tiling fields start zeroed and set_/get_ round-trip every field kind") {
    optiling::HostShimTilingData empty;
    CHECK(empty.get_totalLength() == 0);
    CHECK(empty.get_tileLengths()[3] == 0);
    CHECK(empty.get_inner().get_rows() == 0);

    const auto t = filled_tiling();
    CHECK(t.get_totalLength() == 123456);
    CHECK(t.get_flag() == 7);
    CHECK(t.get_offset() == -5000000000LL);
    CHECK(t.get_tileLengths()[2] == 30);
    CHECK(t.get_inner().get_scale() == 0.25f);
    CHECK(t.get_alpha() == -1.5f);
    CHECK(t.totalLength == 123456);  // the kernel reads fields as plain members
  }

  TEST_CASE(
      "SaveToBuffer writes GetDataSize bytes that GET_TILING_DATA reads back field for field") {
    static_assert(std::is_trivially_copyable<optiling::HostShimTilingData>::value);
    const auto t = filled_tiling();
    CHECK(t.GetDataSize() == sizeof(optiling::HostShimTilingData));

    std::vector<uint8_t> buffer(1024, 0xEE);
    t.SaveToBuffer(buffer.data(), buffer.size());
    CHECK(buffer[t.GetDataSize()] == 0xEE);  // nothing past the data size

    const auto back = kernel_reads(buffer.data());
    CHECK(back.totalLength == 123456);
    CHECK(back.flag == 7);
    CHECK(back.offset == -5000000000LL);
    CHECK(back.tileLengths[0] == 10);
    CHECK(back.tileLengths[3] == 40);
    CHECK(back.inner.rows == 99);
    CHECK(back.inner.scale == 0.25f);
    CHECK(back.alpha == -1.5f);
  }

  TEST_CASE(
      "the registered class is what GET_TILING_DATA copies, and kernels may name it unqualified") {
    CHECK(std::is_same<optiling::aopt_registered_tiling_t, optiling::HostShimTilingData>::value);
    CHECK(std::is_same<optiling::aopt_tiling_of_HostShimOp::type,
                       optiling::HostShimTilingData>::value);
    HostShimTilingData unqualified;  // through aopt_sim/tiling_data.h's using-directive
    CHECK(unqualified.totalLength == 0);
  }

  TEST_CASE("SaveToBuffer into a buffer smaller than the class throws naming the class and sizes") {
    const auto t = filled_tiling();
    std::vector<uint8_t> small(8);
    try {
      t.SaveToBuffer(small.data(), small.size());
      FAIL("SaveToBuffer accepted a buffer that is too small");
    } catch (const std::length_error& e) {
      const std::string message = e.what();
      CHECK(message.find("HostShimTilingData") != std::string::npos);
      CHECK(message.find("capacity of 8 bytes") != std::string::npos);
    }
    CHECK_THROWS_AS(t.SaveToBuffer(nullptr, 1024), std::invalid_argument);
  }

  TEST_CASE("the TilingContext raw buffer carries a saved class to the kernel") {
    gert::TilingContext ctx;
    const auto t = filled_tiling();
    gert::TilingData* raw = ctx.GetRawTilingData();
    t.SaveToBuffer(raw->GetData(), raw->GetCapacity());
    CHECK(raw->SetDataSize(t.GetDataSize()) == ge::GRAPH_SUCCESS);
    CHECK(raw->GetDataSize() == t.GetDataSize());
    CHECK(raw->SetDataSize(raw->GetCapacity() + 1) == ge::GRAPH_FAILED);
    CHECK(kernel_reads(static_cast<const uint8_t*>(raw->GetData())).tileLengths[1] == 20);
  }

  TEST_CASE(
      "plain-struct tiling: GetTilingData on the host, GET_TILING_DATA_WITH_STRUCT in the kernel") {
    gert::TilingContext ctx;
    HostShimPlainTiling* t = ctx.GetTilingData<HostShimPlainTiling>();
    REQUIRE(t != nullptr);
    CHECK(ctx.GetRawTilingData()->GetDataSize() == sizeof(HostShimPlainTiling));
    t->blockLength = 4096;
    t->tileNum = 3;
    t->eps = 1e-6;

    const auto* tiling = static_cast<const uint8_t*>(ctx.GetRawTilingData()->GetData());
    GET_TILING_DATA_WITH_STRUCT(HostShimPlainTiling, copy, tiling);
    CHECK(copy.blockLength == 4096);
    CHECK(copy.tileNum == 3);
    CHECK(copy.eps == 1e-6);
    GET_TILING_DATA_PTR_WITH_STRUCT(HostShimPlainTiling, ptr, tiling);
    CHECK(ptr->tileNum == 3);
    GET_TILING_DATA_MEMBER(HostShimPlainTiling, eps, eps_only, tiling);
    CHECK(eps_only == 1e-6);
    REGISTER_TILING_DEFAULT(HostShimPlainTiling);
  }

  TEST_CASE("GET_TILING_DATA on a null tiling argument throws instead of crashing") {
    const uint8_t* tiling = nullptr;
    CHECK_THROWS_AS(kernel_reads(tiling), std::invalid_argument);
  }

  TEST_CASE("a field may be named like the setter's parameter") {
    optiling::HostShimCommonNames t;
    t.set_value(2.5f);
    const uint32_t pair[2] = {3, 4};
    t.set_values(pair);
    optiling::HostShimInnerTiling inner;
    inner.set_rows(11);
    t.set_data_type(inner);
    CHECK(t.get_value() == 2.5f);
    CHECK(t.get_values()[1] == 4u);
    CHECK(t.get_data_type().get_rows() == 11);
  }
}
