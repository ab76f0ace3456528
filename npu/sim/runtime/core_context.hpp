// The state of one simulated AI Core while a kernel runs on it: its Unified Buffer, its trace
// recorder, the GM regions the kernel was given, and block identity. The kernel API shim reaches
// it through core_context::current(): AscendC's free functions (GetBlockIdx, DataCopy, ...) take
// no context argument, so the running core is a thread-local set by scoped_core for the
// duration of one block's execution. Nothing else in the simulator uses thread-locals.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "hw_profile.hpp"
#include "launch_layout.hpp"
#include "trace.hpp"

namespace aopt::sim {

// A check failed while the kernel ran. `kind` is one of: "ub_overflow", "ub_out_of_bounds",
// "gm_out_of_bounds", "misaligned", "deadlock", "empty_queue", "flag_misuse", "too_many_buffers",
// "bad_argument", "assertion" (ASSERT/assert in the kernel), "unsupported" (an API the simulator
// cannot honour in this launch, e.g. SyncAll over several blocks). what() names the API call, its
// kernel source line when known, and the values.
class sim_error : public std::runtime_error {
 public:
  sim_error(std::string kind, const std::string& message)
      : std::runtime_error(message), kind_(std::move(kind)) {}
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

// A GM allocation the kernel may touch (an input, output, workspace or the tiling buffer).
// Writes must stay inside `bytes`. Reads may also reach `padding` bytes past the end (CANN's
// aclrtMalloc rounds a size up to 32 bytes and adds 32, so a kernel reading its last block whole
// is legal there) and, with a warning on the result, `over_read` bytes further (on hardware they
// are whatever allocation follows; here they hold poison, so a value read there that reaches an
// output mismatches).
struct gm_region {
  std::string name;
  uint8_t* base = nullptr;
  uint64_t bytes = 0;
  uint64_t padding = 0;
  uint64_t over_read = 0;
  bool output = false;  // its writes carry their bytes for the checker's replay (trace.hpp)
  // An output op.json gives no initial contents: it starts as poison, as on CANN it starts as
  // whatever its allocation held.
  bool starts_poisoned = false;
  // The tiling data: its writes carry no bytes and its reads are not replayed (trace.hpp).
  bool tiling_data = false;
};

// What the warning of an atomic accumulation into a starts_poisoned output says first: the judge
// quotes it in a precision failure, where it is the likely cause.
inline constexpr char accumulation_into_uninitialised_output[] =
    "atomic accumulation into uninitialised output ";

class block_runner;
class core_memory_pool;
class byte_arena;
class gm_guard;

struct kernel_launch {
  hw_profile hw;
  uint32_t block_num = 1;  // blockDim: blocks, or MIX groups
  // A MIX launch (launch_layout.hpp): the AIVs of each group; 0 runs blockDim whole cores.
  uint32_t aiv_per_aic = 0;
  // Where a core of a launch that is not MIX records the AIVs per AIC of the MIX type its kernel
  // declares (KERNEL_TASK_TYPE_DEFAULT): the driver then runs the input set again as that launch.
  std::atomic<uint32_t>* declared_aiv_per_aic = nullptr;
  std::vector<gm_region> gm;
  bool record_trace = true;
  uint64_t tiling_key = 0;  // what TILING_KEY_IS compares with (TilingContext::SetTilingKey)
  // Runs the blocks so that SyncAll synchronises them (block_runner.hpp); without one, SyncAll
  // over more than one block is refused as "unsupported".
  block_runner* runner = nullptr;
  // Orders the GM writes of all blocks (trace.hpp gm_write::seq); without one, each core counts
  // its own.
  std::atomic<uint64_t>* gm_write_seq = nullptr;
  // Hands the cores their local memories (core_memory_pool.hpp); without one, each core
  // allocates its own.
  core_memory_pool* core_memory = nullptr;
  // Keeps the data of the launch's traced GM writes (byte_arena.hpp); without one, each core
  // keeps its own.
  byte_arena* write_snapshots = nullptr;
  // The most instructions a finished core of this launch recorded: a core starting later
  // reserves that many, since the cores of a launch mostly run the same code, so its trace does
  // not grow by copies into fresh memory (each new page costs a fault on these machines).
  std::atomic<size_t>* recorded_instructions = nullptr;
  // Keeps the GM out of the kernel's reach outside the API calls that touch it (gm_guard.hpp);
  // without one, the GM stays open.
  gm_guard* guard = nullptr;

  launch_layout layout() const { return {block_num, aiv_per_aic}; }
};

class core_context {
 public:
  // Core `core` of the launch's layout (launch_layout.hpp; for a launch that is not MIX, block
  // `core`).
  core_context(const kernel_launch& launch, uint32_t core);
  ~core_context();
  core_context(const core_context&) = delete;
  core_context& operator=(const core_context&) = delete;

  // The core the calling thread is running. REQUIRES: inside a scoped_core (throws sim_error
  // otherwise).
  static core_context& current();
  static bool running();

  uint32_t block_idx() const;  // GetBlockIdx
  uint32_t block_num() const;
  const core_identity& identity() const;
  const hw_profile& hw() const;

  // Called after the kernel returns: reports unmatched SetFlag/WaitFlag as sim_error; a queue
  // tensor still allocated is a warning (the hardware runs such a kernel). Then hands over the
  // trace, with the compiler's automatic synchronisation edges added when the profile has
  // auto_sync on (auto_sync.hpp), and the warnings (reads past a GM tensor's padding, tensors
  // left allocated), each once.
  void finish();
  core_trace take_trace();
  std::vector<std::string> take_warnings();

  struct impl;
  impl& internals() { return *impl_; }  // for the shim's implementation files only

 private:
  std::unique_ptr<impl> impl_;
};

// A pool of local memories for the cores of launches on `hw` (core_memory_pool.hpp), poisoned
// as a core's memories start.
std::unique_ptr<core_memory_pool> make_core_memory_pool(const hw_profile& hw);

// Makes `core` the calling thread's current core for its lifetime.
class scoped_core {
 public:
  explicit scoped_core(core_context& core);
  ~scoped_core();
  scoped_core(const scoped_core&) = delete;
  scoped_core& operator=(const scoped_core&) = delete;

 private:
  core_context* previous_;
};

}  // namespace aopt::sim
