// The tensor, pipe and identity parts of the AscendC shim: GlobalTensor/LocalTensor views and
// scalar access, TPipe/TQue/TBuf allocation, block identity, the tiling key and the element types.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <vector>

#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::shim_run;

TEST_SUITE("sim") {
  TEST_CASE("GlobalTensor views read and write GM through GetValue and SetValue") {
    shim_run run;
    float* x = run.gm<float>("x", 64);
    for (int i = 0; i < 64; ++i) x[i] = static_cast<float>(i);
    float seen = 0;
    uint64_t size = 0;
    run.run([&] {
      GlobalTensor<float> g;
      g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 64);
      GlobalTensor<float> tail = g[16];
      seen = tail.GetValue(3);
      size = tail.GetSize();
      tail.SetValue(0, 100.0f);
    });
    CHECK(seen == 19.0f);
    CHECK(size == 48);
    CHECK(x[16] == 100.0f);
  }

  TEST_CASE("LocalTensor sub-views, sizes and ReinterpretCast address the same UB bytes") {
    shim_run run;
    uint32_t size = 0;
    uint32_t sub_size = 0;
    uint32_t bytes_size = 0;
    float via_sub = 0;
    uint8_t low_byte = 0;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 256);
      LocalTensor<float> t = buf.Get<float>();
      size = t.GetSize();
      for (uint32_t i = 0; i < size; ++i) t.SetValue(i, static_cast<float>(i) * 2);
      LocalTensor<float> sub = t[8];
      sub_size = sub.GetSize();
      via_sub = sub.GetValue(1);
      LocalTensor<uint8_t> bytes = t.ReinterpretCast<uint8_t>();
      bytes_size = bytes.GetSize();
      t.SetValue(0, 0.0f);
      t(1) = 1.0f;
      low_byte = bytes.GetValue(7);  // high byte of 1.0f
    });
    CHECK(size == 64);
    CHECK(sub_size == 56);
    CHECK(via_sub == 18.0f);
    CHECK(bytes_size == 256);
    CHECK(low_byte == 0x3f);
  }

  TEST_CASE("TPipe places buffers 32-byte aligned one after another and TBuf::Get sizes them") {
    shim_run run;
    std::vector<uint32_t> addrs;
    uint32_t que_size = 0;
    uint32_t custom = 0;
    core_trace trace = run.run([&] {
      TPipe pipe;
      TQue<QuePosition::VECIN, 2> in;
      TBuf<TPosition::VECCALC> tmp;
      pipe.InitBuffer(in, 2, 100);  // rounded up to 128
      pipe.InitBuffer(tmp, 64);
      LocalTensor<half> a = in.AllocTensor<half>();
      LocalTensor<half> b = in.AllocTensor<half>();
      que_size = a.GetSize();
      custom = tmp.Get<float>(5).GetSize();
      addrs = {a.aopt_ref().addr, b.aopt_ref().addr, tmp.Get<float>().aopt_ref().addr};
      in.FreeTensor(a);
      in.FreeTensor(b);
    });
    CHECK(addrs == std::vector<uint32_t>{0, 128, 256});
    CHECK(que_size == 64);
    CHECK(custom == 5);
    CHECK(trace.ub_high_water_bytes == 320);
  }

  TEST_CASE("TPipe::Reset releases every buffer so InitBuffer starts again at UB 0") {
    shim_run run;
    uint32_t first = 1;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> a;
      TBuf<TPosition::VECCALC> b;
      pipe.InitBuffer(a, 150000);
      pipe.Reset();
      pipe.InitBuffer(b, 150000);
      first = b.Get<uint8_t>().aopt_ref().addr;
    });
    CHECK(first == 0);
  }

  TEST_CASE("a queue hands out its buffers in ring order and reports its occupancy") {
    shim_run run;
    std::vector<uint32_t> order;
    int32_t in_queue = -1;
    bool idle_after_two = true;
    run.run([&] {
      TPipe pipe;
      TQue<QuePosition::VECOUT, 2> q;
      pipe.InitBuffer(q, 2, 64);
      for (int i = 0; i < 3; ++i) {
        LocalTensor<float> t = q.AllocTensor<float>();
        order.push_back(t.aopt_ref().addr);
        q.EnQue(t);
        in_queue = q.GetTensorCountInQue();
        LocalTensor<float> d = q.DeQue<float>();
        q.FreeTensor(d);
      }
      LocalTensor<float> x = q.AllocTensor<float>();
      LocalTensor<float> y = q.AllocTensor<float>();
      idle_after_two = q.HasIdleBuffer();
      q.FreeTensor(x);
      q.FreeTensor(y);
    });
    CHECK(order == std::vector<uint32_t>{0, 64, 0});
    CHECK(in_queue == 1);
    CHECK_FALSE(idle_after_two);
  }

  TEST_CASE("event ids are allocated, fetched and released per HardEvent") {
    shim_run run;
    std::vector<int> ids;
    run.run([&] {
      TPipe pipe;
      ids.push_back(pipe.AllocEventID<HardEvent::V_S>());
      ids.push_back(pipe.AllocEventID<HardEvent::V_S>());
      ids.push_back(GetTPipePtr()->FetchEventID(HardEvent::V_S));
      pipe.ReleaseEventID<HardEvent::V_S>(0);
      ids.push_back(pipe.FetchEventID<HardEvent::V_S>());
      ids.push_back(pipe.AllocEventID<HardEvent::MTE2_V>());
    });
    CHECK(ids == std::vector<int>{0, 1, 2, 0, 0});
  }

  TEST_CASE("GetBlockIdx, GetBlockNum and TILING_KEY_IS reflect the launch") {
    shim_run run;
    run.launch.block_num = 4;
    run.launch.tiling_key = 7;
    int64_t idx = -1;
    int64_t num = -1;
    int64_t sub = -1;
    int64_t subs = -1;
    bool key7 = false;
    bool key1 = true;
    bool aiv = false;
    bool aic = true;
    run.run(
        [&] {
          idx = GetBlockIdx();
          num = GetBlockNum();
          key7 = TILING_KEY_IS(7);
          key1 = TILING_KEY_IS(1);
          sub = GetSubBlockIdx();
          subs = GetSubBlockNum();
          aiv = ASCEND_IS_AIV;
          aic = ASCEND_IS_AIC;
          // Types that are not MIX, and a MIX type for another tiling key, change nothing.
          KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
          KERNEL_TASK_TYPE(1, KERNEL_TYPE_MIX_AIC_1_2);
        },
        3);
    CHECK(idx == 3);
    CHECK(num == 4);
    CHECK(key7);
    CHECK_FALSE(key1);
    // A kernel that is not MIX runs on cores that count as AIVs, one sub-block each.
    CHECK(sub == 0);
    CHECK(subs == 1);
    CHECK(aiv);
    CHECK_FALSE(aic);
  }

  TEST_CASE("in a MIX launch each core knows its unit, block and sub-block as documented") {
    // MIX_AIC_1_2 with blockDim 2: cores AIC 0, AIV 0, AIV 1, AIC 1, AIV 2, AIV 3.
    const aopt::sim::launch_layout layout{2, 2};
    REQUIRE(layout.cores() == 6);
    const std::vector<std::array<int64_t, 4>> expected = {{1, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 1, 1},
                                                          {1, 1, 1, 0}, {0, 1, 2, 0}, {0, 1, 3, 1}};
    for (uint32_t core = 0; core < layout.cores(); ++core) {
      shim_run run;
      run.launch.block_num = 2;
      run.launch.aiv_per_aic = 2;
      std::array<int64_t, 4> seen{};
      run.run(
          [&] {
            seen = {ASCEND_IS_AIC ? 1 : 0, static_cast<int64_t>(layout.identity(core).group),
                    GetBlockIdx(), GetSubBlockIdx()};
            CHECK(GetBlockNum() == 2);
            CHECK(GetSubBlockNum() == 2);
            CHECK(GetTaskRation() == 2);
            CHECK(ASCEND_IS_AIV == !ASCEND_IS_AIC);
          },
          core);
      CHECK(seen == expected[core]);
    }
  }

  TEST_CASE("half and bfloat16_t round to nearest even") {
    // 1 + 2^-11 is halfway between half 1 and 1 + 2^-10: ties to even gives 1.
    CHECK(static_cast<float>(static_cast<half>(1.0f + std::ldexp(1.0f, -11))) == 1.0f);
    CHECK(static_cast<float>(static_cast<half>(1.0f + 3 * std::ldexp(1.0f, -11))) ==
          1.0f + std::ldexp(1.0f, -9));
    CHECK(static_cast<float>(bfloat16_t(1.0f + std::ldexp(1.0f, -8))) == 1.0f);
    CHECK(static_cast<float>(bfloat16_t(1.0f + 3 * std::ldexp(1.0f, -8))) ==
          1.0f + std::ldexp(1.0f, -6));
    CHECK(std::isnan(static_cast<float>(bfloat16_t(std::nanf("")))));
    const bfloat16_t b = 3.0f;
    CHECK(b * 2.0f == 6.0f);
  }

  TEST_CASE("uninitialised UB reads as a huge finite value: times zero is zero, else it shows") {
    shim_run run;
    float v = 0;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 32);
      v = buf.Get<float>().GetValue(3);
    });
    CHECK(std::isfinite(v));
    CHECK(std::fabs(v) > 1e30f);
    CHECK(v * 0.0f == 0.0f);
  }
}

}  // namespace
}  // namespace aopt::sim
