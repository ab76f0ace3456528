// The shim's run-time checks (issue 2 point 2): each misuse throws sim_error of the documented
// kind with a message naming the API call, its line and the values.
#include <doctest/doctest.h>

#include <string>

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

  TEST_CASE("a queue tensor never freed is reported when the kernel ends") {
    shim_run run;
    std::string message;
    CHECK(error_kind(
              [&] {
                run.run([] {
                  TPipe pipe;
                  TQue<QuePosition::VECOUT, 1> q;
                  pipe.InitBuffer(q, 1, 256);
                  q.EnQue(q.AllocTensor<float>());
                });
              },
              &message) == "unfreed_tensor");
    CHECK(contains(message, "still enqueued"));
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
