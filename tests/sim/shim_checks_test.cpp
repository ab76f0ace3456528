// The shim's run-time checks (issue 2 point 2): each misuse throws sim_error of the documented
// kind with a message naming the API call, its line and the values.
#include <cmath>

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "sim/shim_fixture.hpp"

namespace aopt::sim {
namespace {

using namespace AscendC;  // NOLINT(google-build-using-namespace): kernels are written this way
using testing::error_kind;
using testing::shim_run;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_SUITE("sim") {
  TEST_CASE("InitBuffer beyond the profile's UB size is ub_overflow") {
    shim_run run;
    std::string message;
    const std::string kind = error_kind(
        [&] {
          run.run([] {
            TPipe pipe;
            TQue<QuePosition::VECIN, 2> q;
            TBuf<TPosition::VECCALC> t;
            pipe.InitBuffer(q, 2, 65536);
            pipe.InitBuffer(t, 65537);
          });
        },
        &message);
    CHECK(kind == "ub_overflow");
    CHECK(contains(message, "TPipe::InitBuffer (line "));
    CHECK(contains(message, "65537 bytes"));
    CHECK(contains(message, "196608"));
  }

  TEST_CASE("more than 64 buffers in a TPipe is too_many_buffers") {
    shim_run run;
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBuf<TPosition::VECCALC> bufs[65];
              for (auto& b : bufs) pipe.InitBuffer(b, 32);
            });
          }) == "too_many_buffers");
  }

  TEST_CASE("a LocalTensor access outside its buffer is ub_out_of_bounds") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TBuf<TPosition::VECCALC> a;
                  TBuf<TPosition::VECCALC> b;
                  pipe.InitBuffer(a, 256);
                  pipe.InitBuffer(b, 256);
                  a.Get<float>().SetValue(64, 1.0f);  // the first float of b
                });
              },
              &message) == "ub_out_of_bounds");
    CHECK(contains(message, "LocalTensor::SetValue"));
    CHECK(contains(message, "UB [256, 260)"));
    CHECK(contains(message, "[0, 256)"));

    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBuf<TPosition::VECCALC> a;
              pipe.InitBuffer(a, 256);
              LocalTensor<float> t = a.Get<float>();
              Add(t, t, t, 65);  // one element past the buffer
            });
          }) == "ub_out_of_bounds");
    CHECK(error_kind([&] {
            run.run([] {
              LocalTensor<float> none;
              none.GetValue(0);
            });
          }) == "ub_out_of_bounds");
  }

  TEST_CASE("a vector source read past its buffer but inside the UB is a warning, not a failure") {
    // Honest kernels round a count up and discard the extra lanes (DrivingSDK's
    // select_idx_with_mask casts a 64-rounded count from an 8-rounded buffer).
    shim_run run;
    std::vector<float> out(64, -1.0f);
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> a;
      TBuf<TPosition::VECCALC> c;
      pipe.InitBuffer(a, 256);
      pipe.InitBuffer(c, 512);
      LocalTensor<float> src = a.Get<float>();
      LocalTensor<float> dst = c.Get<float>();
      Duplicate(src, 2.0f, 64);
      Duplicate(dst, 0.0f, 128);
      Add(dst, src, src, 72);  // reads 8 floats past a: the first of c
      for (int i = 0; i < 64; ++i) out[static_cast<size_t>(i)] = dst.GetValue(i);
    });
    CHECK(out[0] == 4.0f);
    CHECK(out[63] == 4.0f);
    REQUIRE(run.warnings.size() == 2);  // src0 and src1
    CHECK(contains(run.warnings[0], "Add (line "));
    CHECK(contains(run.warnings[0], "src0 reads UB [0, 288)"));
    CHECK(contains(run.warnings[0], "past the tensor's buffer UB [0, 256)"));

    // Past the UB itself, or written, it still fails.
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBuf<TPosition::VECCALC> a;
              TBuf<TPosition::VECCALC> c;
              pipe.InitBuffer(c, 196608 - 256);
              pipe.InitBuffer(a, 256);
              LocalTensor<float> src = a.Get<float>();
              Add(c.Get<float>(), src, src, 72);
            });
          }) == "ub_out_of_bounds");
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBuf<TPosition::VECCALC> a;
              TBuf<TPosition::VECCALC> c;
              pipe.InitBuffer(a, 256);
              pipe.InitBuffer(c, 512);
              LocalTensor<float> t = a.Get<float>();
              Add(t, c.Get<float>(), c.Get<float>(), 72);
            });
          }) == "ub_out_of_bounds");
  }

  TEST_CASE("DataCopy breaking the 32-byte rule is misaligned") {
    shim_run run;
    float* x = run.gm<float>("x", 1024);
    std::string length_message;
    CHECK(error_kind(
              [&] {
                run.run([&] {
                  TPipe pipe;
                  TBuf<TPosition::VECCALC> a;
                  pipe.InitBuffer(a, 1024);
                  GlobalTensor<float> g;
                  g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 1024);
                  DataCopy(a.Get<float>(), g, 100);
                });
              },
              &length_message) == "misaligned");
    CHECK(contains(length_message, "DataCopy"));
    CHECK(contains(length_message, "100 elements x 4 bytes = 400 bytes"));

    std::string address_message;
    CHECK(error_kind(
              [&] {
                run.run([&] {
                  TPipe pipe;
                  TBuf<TPosition::VECCALC> a;
                  pipe.InitBuffer(a, 1024);
                  GlobalTensor<float> g;
                  g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x), 1024);
                  DataCopy(g, a.Get<float>()[4], 64);  // UB address 16
                });
              },
              &address_message) == "misaligned");
    CHECK(contains(address_message, "UB address 16"));
  }

  TEST_CASE("GM access outside the kernel's tensors is gm_out_of_bounds, without raw pointers") {
    shim_run run;
    float* x = run.gm<float>("x", 64);
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([&] {
                  TPipe pipe;
                  TBuf<TPosition::VECCALC> a;
                  pipe.InitBuffer(a, 1024);
                  GlobalTensor<float> g;
                  g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x));
                  DataCopy(a.Get<float>(), g[32], 64);  // 32 floats past the end
                });
              },
              &message) == "gm_out_of_bounds");
    CHECK(contains(message, "'x' + 128"));
    CHECK(contains(message, "256 bytes"));

    CHECK(error_kind([&] {
            run.run([&] {
              GlobalTensor<float> g;
              g.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(x));
              g.SetValue(64, 1.0f);
            });
          }) == "gm_out_of_bounds");
  }

  TEST_CASE("AllocTensor with no free buffer is a deadlock") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TQue<QuePosition::VECIN, 1> q;
                  pipe.InitBuffer(q, 1, 256);
                  LocalTensor<float> a = q.AllocTensor<float>();
                  q.EnQue(a);
                  static_cast<void>(q.AllocTensor<float>());
                });
              },
              &message) == "deadlock");
    CHECK(contains(message, "AllocTensor (line "));
    CHECK(contains(message, "1 enqueued"));
  }

  TEST_CASE("DeQue on an empty queue is empty_queue") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TQue<QuePosition::VECOUT, 1> q;
                  pipe.InitBuffer(q, 2, 256);
                  LocalTensor<float> a = q.AllocTensor<float>();
                  q.EnQue(a);
                  q.FreeTensor(q.DeQue<float>());
                  q.DeQue<float>();
                });
              },
              &message) == "empty_queue");
    CHECK(contains(message, "TQue<VECOUT>"));
  }

  TEST_CASE("an unmatched SetFlag at the end or a WaitFlag without a set is flag_misuse") {
    shim_run run;
    std::string message;
    CHECK(error_kind([&] { run.run([] { SetFlag<HardEvent::V_MTE3>(2); }); }, &message) ==
          "flag_misuse");
    CHECK(contains(message, "SetFlag<HardEvent::V_MTE3>(2) at line "));
    CHECK(contains(message, "no matching WaitFlag"));

    CHECK(error_kind([&] { run.run([] { WaitFlag<HardEvent::MTE2_V>(0); }); }, &message) ==
          "flag_misuse");
    CHECK(contains(message, "WaitFlag<HardEvent::MTE2_V>(0)"));

    CHECK(error_kind([&] {
            run.run([] {
              SetFlag<HardEvent::S_V>(1);
              SetFlag<HardEvent::S_V>(1);
            });
          }) == "flag_misuse");
    CHECK(error_kind([&] { run.run([] { SetFlag<HardEvent::S_V>(8); }); }) == "flag_misuse");
    CHECK(error_kind([&] {
            run.run([] {
              SetFlag<HardEvent::MTE2_V>(3);
              WaitFlag<HardEvent::MTE2_V>(3);
              set_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
              wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID1);
            });
          }) == "");
  }

  TEST_CASE("a queue tensor held to the end of the kernel is a warning, not a failure") {
    shim_run run;
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TQue<QuePosition::VECOUT, 1> q;
              pipe.InitBuffer(q, 1, 256);
              q.EnQue(q.AllocTensor<float>());
            });
          }) == "");
    REQUIRE(run.warnings.size() == 1);
    CHECK(contains(run.warnings[0], "still enqueued"));
    CHECK(contains(run.warnings[0], "AllocTensor"));
    // Freed in time: no warning.
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TQue<QuePosition::VECOUT, 1> q;
              pipe.InitBuffer(q, 1, 256);
              q.EnQue(q.AllocTensor<float>());
              q.FreeTensor(q.DeQue<float>());
            });
          }) == "");
    CHECK(run.warnings.empty());
  }

  TEST_CASE("a tensor freed through another queue of its positions is a warning; of others not") {
    // DrivingSDK's points_in_box frees its two VECIN tensors through each other's queues.
    shim_run run;
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TQue<QuePosition::VECIN, 1> a, b;
              pipe.InitBuffer(a, 1, 256);
              pipe.InitBuffer(b, 1, 256);
              LocalTensor<float> ta = a.AllocTensor<float>();
              LocalTensor<float> tb = b.AllocTensor<float>();
              a.FreeTensor(tb);
              b.FreeTensor(ta);
              // Each buffer is free again: its own queue hands it out once more.
              a.FreeTensor(a.AllocTensor<float>());
              b.FreeTensor(b.AllocTensor<float>());
            });
          }) == "");
    REQUIRE(run.warnings.size() == 2);
    CHECK(contains(run.warnings[0], "allocated from another TQue<VECIN>"));
    // A VECOUT tensor freed through a VECIN queue would signal the wrong pipes: refused.
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TQue<QuePosition::VECIN, 1> in;
                  TQue<QuePosition::VECOUT, 1> out;
                  pipe.InitBuffer(in, 1, 256);
                  pipe.InitBuffer(out, 1, 256);
                  in.FreeTensor(out.AllocTensor<float>());
                });
              },
              &message) == "bad_argument");
    CHECK(contains(message, "was not allocated from this TQue<VECIN>"));
    // A tensor freed twice, the second time through the other queue, is still a double free.
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TQue<QuePosition::VECIN, 1> a, b;
                  pipe.InitBuffer(a, 1, 256);
                  pipe.InitBuffer(b, 1, 256);
                  LocalTensor<float> ta = a.AllocTensor<float>();
                  a.FreeTensor(ta);
                  b.FreeTensor(ta);
                });
              },
              &message) == "bad_argument");
    CHECK(contains(message, "already freed"));
  }

  TEST_CASE(
      "GM reads may reach CANN's allocation padding and past it with a warning; writes only it") {
    shim_run run;
    float* x = run.gm<float>("x", 7);  // 28 bytes: aclrtMalloc gives 32 + 32
    run.launch.gm.back().padding = 36;
    run.launch.gm.back().over_read = 1024;
    float* z = run.gm<float>("z", 7);
    run.launch.gm.back().padding = 36;
    run.launch.gm.back().over_read = 1024;
    auto copy_in = [&](uint32_t count) {
      return error_kind([&] {
        run.run([&] {
          TPipe pipe;
          TBuf<TPosition::VECCALC> buf;
          pipe.InitBuffer(buf, 4096);
          GlobalTensor<float> g;
          g.SetGlobalBuffer(x, 7);
          DataCopy(buf.Get<float>(), g, count);
        });
      });
    };
    CHECK(copy_in(16) == "");  // 64 bytes: 36 past the end, inside the padding
    CHECK(run.warnings.empty());
    CHECK(copy_in(24) == "");  // 96 bytes: 68 past the end, beyond the padding
    REQUIRE(run.warnings.size() == 1);
    CHECK(contains(run.warnings[0], "68 bytes past the end of 'x'"));
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([&] {
                  TPipe pipe;
                  TBuf<TPosition::VECCALC> buf;
                  pipe.InitBuffer(buf, 8192);
                  GlobalTensor<float> g;
                  g.SetGlobalBuffer(x, 7);
                  DataCopy(buf.Get<float>(), g, 512);  // 2 KiB: past the over-read zone
                });
              },
              &message) == "gm_out_of_bounds");
    // A write may reach into the tensor's own allocation padding (a block-granular tail copy),
    // with a warning; beyond it, it would corrupt whatever follows on the hardware.
    const auto copy_out = [&](uint32_t count) {
      return error_kind(
          [&] {
            run.run([&] {
              TPipe pipe;
              TBuf<TPosition::VECCALC> buf;
              pipe.InitBuffer(buf, 256);
              GlobalTensor<float> g;
              g.SetGlobalBuffer(z, 7);
              Duplicate(buf.Get<float>(), 1.0f, 64);
              PipeBarrier<PIPE_ALL>();
              DataCopy(g, buf.Get<float>(), count);
            });
          },
          &message);
    };
    CHECK(copy_out(8) == "");  // 32 bytes: 4 past the end, inside the 36 bytes of padding
    REQUIRE(run.warnings.size() == 1);
    CHECK(contains(run.warnings[0], "writes 4 bytes past the end of 'z'"));
    for (uint32_t i = 0; i < 7; ++i) CHECK(z[i] == 1.0f);
    CHECK(copy_out(24) == "gm_out_of_bounds");  // 96 bytes: 68 past the end
    CHECK(contains(message,
                   "a write must stay inside the tensor and its 36 bytes of allocation padding"));
  }

  TEST_CASE("uninitialised UB holds large finite values: multiplying by zero gives zero") {
    shim_run run;
    float stale = 0, zeroed = 1;
    half stale_half = 0;
    run.run([&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 1024);
      LocalTensor<float> t = buf.Get<float>();
      stale = t.GetValue(3);
      stale_half = buf.Get<half>()[256].GetValue(0);
      Muls(t, t, 0.0f, 64);
      PipeBarrier<PIPE_ALL>();
      zeroed = t.GetValue(3);
    });
    CHECK(std::isfinite(stale));
    CHECK(stale > 1e30f);  // large: a stale value reaching an output still mismatches
    CHECK(std::isfinite(static_cast<float>(stale_half)));
    CHECK(static_cast<float>(stale_half) > 60000.0f);
    CHECK(zeroed == 0.0f);
  }

  TEST_CASE("queue misuse names the call: foreign tensors, double frees, PipeBarrier<PIPE_S>") {
    shim_run run;
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TQue<QuePosition::VECIN, 1> a;
              TQue<QuePosition::VECIN, 1> b;
              pipe.InitBuffer(a, 1, 64);
              pipe.InitBuffer(b, 1, 64);
              LocalTensor<float> t = a.AllocTensor<float>();
              b.EnQue(t);
            });
          }) == "bad_argument");
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TQue<QuePosition::VECIN, 1> a;
              pipe.InitBuffer(a, 1, 64);
              LocalTensor<float> t = a.AllocTensor<float>();
              a.FreeTensor(t);
              a.FreeTensor(t);
            });
          }) == "bad_argument");
    CHECK(error_kind([&] {
            run.run([] {
              TQue<QuePosition::VECIN, 1> never_initialised;
              never_initialised.AllocTensor<float>();
            });
          }) == "bad_argument");
    CHECK(error_kind([&] { run.run([] { PipeBarrier<PIPE_S>(); }); }) == "bad_argument");
  }

  TEST_CASE("Compare needs whole 256-byte repeats and masks must fit a repeat") {
    shim_run run;
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBuf<TPosition::VECCALC> a;
              pipe.InitBuffer(a, 1024);
              LocalTensor<float> t = a.Get<float>();
              Compare(t.ReinterpretCast<uint8_t>(), t[64], t[128], CMPMODE::LT, 32);
            });
          }) == "bad_argument");
    CHECK(error_kind([&] {
            run.run([] {
              TPipe pipe;
              TBuf<TPosition::VECCALC> a;
              pipe.InitBuffer(a, 1024);
              LocalTensor<float> t = a.Get<float>();
              Add(t, t, t, 65, 1, {1, 1, 1, 8, 8, 8});
            });
          }) == "bad_argument");
  }

  TEST_CASE("a vector operand off a 32-byte boundary is misaligned") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TBuf<TPosition::VECCALC> a;
                  pipe.InitBuffer(a, 1024);
                  LocalTensor<float> t = a.Get<float>();
                  Adds(t[1], t[64], 1.0f, 8);
                });
              },
              &message) == "misaligned");
    CHECK(contains(message, "Adds"));
    CHECK(contains(message, "dst"));
  }
}

}  // namespace
}  // namespace aopt::sim
