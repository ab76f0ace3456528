// aopt simulator, kernel side: TPipe (the Unified Buffer allocator), TQue/TQueBind (buffer
// queues with AscendC's hidden synchronisation), TBuf (plain scratch buffers) and TBufPool
// (sub-pools of the TPipe's memory).
//
// Queue state lives in the simulated core; a queue object holds only its handle. The hidden
// flags of a queue (EnQue/DeQue between its producer and consumer pipe, FreeTensor/AllocTensor
// of a reused buffer) are recorded in the trace as set_flag/wait_flag pairs.
#pragma once

#include <cstdint>

#include "aopt_sim/kernel/defs.h"
#include "aopt_sim/kernel/runtime_api.h"
#include "aopt_sim/kernel/tensor.h"

namespace AscendC {

namespace detail {

class queue_base {
 public:
  queue_base(TPosition src, TPosition dst, int32_t depth) : src_(src), dst_(dst), depth_(depth) {}

  template <typename T>
  LocalTensor<T> AllocTensor(
      aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return as_tensor<T>(aopt_sim::rt::queue_alloc(handle_, site));
  }

  template <typename T>
  bool EnQue(const LocalTensor<T>& tensor,
             aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    aopt_sim::rt::queue_enque(handle_, tensor.aopt_ref(), site);
    return true;
  }

  template <typename T>
  LocalTensor<T> DeQue(aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return as_tensor<T>(aopt_sim::rt::queue_deque(handle_, site));
  }

  template <typename T>
  void FreeTensor(const LocalTensor<T>& tensor,
                  aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    aopt_sim::rt::queue_free(handle_, tensor.aopt_ref(), site);
  }

  bool VacantInQue() const {
    return aopt_sim::rt::queue_count(handle_) < aopt_sim::rt::queue_depth(handle_);
  }
  bool HasTensorInQue() const { return aopt_sim::rt::queue_count(handle_) > 0; }
  int32_t GetTensorCountInQue() const { return aopt_sim::rt::queue_count(handle_); }
  bool HasIdleBuffer() const { return aopt_sim::rt::queue_idle_buffers(handle_) > 0; }
  void FreeAllEvent() {}

  // Set by TPipe::InitBuffer.
  void aopt_bind(const aopt_sim::rt::queue_handle& h) { handle_ = h; }
  TPosition aopt_src() const { return src_; }
  TPosition aopt_dst() const { return dst_; }
  int32_t aopt_depth() const { return depth_; }

 private:
  template <typename T>
  static LocalTensor<T> as_tensor(const aopt_sim::rt::local_ref& ref) {
    return LocalTensor<T>(ref, (ref.buf_end - ref.buf_begin) / static_cast<uint32_t>(sizeof(T)));
  }

  TPosition src_;
  TPosition dst_;
  int32_t depth_;
  aopt_sim::rt::queue_handle handle_;
};

}  // namespace detail

// `extra` admits the optional mask/config arguments of newer CANN releases; they do not change
// the simulated behaviour.
template <TPosition pos, int32_t depth = 1, auto... extra>
class TQue : public detail::queue_base {
 public:
  TQue() : detail::queue_base(pos, pos, depth) {}
};

template <TPosition src, TPosition dst, int32_t depth = 1, auto... extra>
class TQueBind : public detail::queue_base {
 public:
  TQueBind() : detail::queue_base(src, dst, depth) {}
};

template <TPosition pos = TPosition::VECCALC>
class TBuf {
 public:
  template <typename T>
  LocalTensor<T> Get() const {
    return LocalTensor<T>(ref_, (ref_.buf_end - ref_.buf_begin) / static_cast<uint32_t>(sizeof(T)));
  }
  template <typename T>
  LocalTensor<T> Get(const uint32_t len) const {
    return LocalTensor<T>(ref_, len);
  }
  // TBuf::AllocTensor is Get() under another name (the whole buffer); FreeTensor releases
  // nothing: a TBuf has no queue, so neither generates a synchronisation event.
  template <typename T>
  LocalTensor<T> AllocTensor() const {
    return Get<T>();
  }
  template <typename T>
  void FreeTensor(const LocalTensor<T>&) const {}
  template <typename T>
  LocalTensor<T> GetWithOffset(const uint32_t size, const uint32_t bufOffset) const {
    aopt_sim::rt::local_ref r = ref_;
    r.addr += bufOffset;
    return LocalTensor<T>(r, size);
  }

  void aopt_bind(const aopt_sim::rt::local_ref& r) { ref_ = r; }

 private:
  aopt_sim::rt::local_ref ref_;
};

// A sub-pool of the TPipe's memory (TPipe::InitBufPool): queues and TBufs given buffers by it
// live inside its range, and a pool built with a share pool aliases that pool's range, so stages
// of a kernel can reuse the same UB. Reset() is a full barrier: the buffers stay allocated.
template <TPosition pos, uint32_t bufIDSize = 4>
class TBufPool {
 public:
  template <TPosition qpos, int32_t depth, auto... extra>
  bool InitBuffer(TQue<qpos, depth, extra...>& que, uint8_t num, uint32_t len,
                  aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return init_queue(que, num, len, site);
  }
  template <TPosition src, TPosition dst, int32_t depth, auto... extra>
  bool InitBuffer(TQueBind<src, dst, depth, extra...>& que, uint8_t num, uint32_t len,
                  aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return init_queue(que, num, len, site);
  }
  template <TPosition bpos>
  bool InitBuffer(TBuf<bpos>& buf, uint32_t len,
                  aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    buf.aopt_bind(aopt_sim::rt::pool_init_tbuf(handle_, bpos, len, site));
    return true;
  }
  template <class T>
  bool InitBufPool(T& bufPool, uint32_t len,
                   aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    bufPool.aopt_init(handle_, aopt_sim::rt::queue_handle{}, len, site);
    return true;
  }
  template <class T, class U>
  bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf,
                   aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    bufPool.aopt_init(handle_, shareBuf.aopt_handle(), len, site);
    return true;
  }
  void Reset(aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    aopt_sim::rt::pool_reset(handle_, site);
  }

  void aopt_init(const aopt_sim::rt::queue_handle& parent, const aopt_sim::rt::queue_handle& share,
                 uint32_t len, aopt_sim::rt::call_site site) {
    handle_ = aopt_sim::rt::pool_init_pool(parent, share, bufIDSize, len, site);
  }
  const aopt_sim::rt::queue_handle& aopt_handle() const { return handle_; }

 private:
  bool init_queue(detail::queue_base& que, uint8_t num, uint32_t len,
                  aopt_sim::rt::call_site site) {
    que.aopt_bind(aopt_sim::rt::pool_init_queue(handle_, que.aopt_src(), que.aopt_dst(),
                                                que.aopt_depth(), num, len, site));
    return true;
  }

  aopt_sim::rt::queue_handle handle_;
};

class TPipe {
 public:
  TPipe() { aopt_sim::rt::pipe_attach(this); }
  ~TPipe() { aopt_sim::rt::pipe_detach(this); }
  TPipe(const TPipe&) = delete;
  TPipe& operator=(const TPipe&) = delete;

  template <TPosition pos, int32_t depth, auto... extra>
  bool InitBuffer(TQue<pos, depth, extra...>& que, uint8_t num, uint32_t len,
                  aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return init_queue(que, num, len, site);
  }

  template <TPosition src, TPosition dst, int32_t depth, auto... extra>
  bool InitBuffer(TQueBind<src, dst, depth, extra...>& que, uint8_t num, uint32_t len,
                  aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return init_queue(que, num, len, site);
  }

  template <TPosition pos>
  bool InitBuffer(TBuf<pos>& buf, uint32_t len,
                  aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    buf.aopt_bind(aopt_sim::rt::pipe_init_tbuf(pos, len, site));
    return true;
  }

  void Reset(aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    aopt_sim::rt::pipe_reset(site);
  }

  template <class T>
  bool InitBufPool(T& bufPool, uint32_t len,
                   aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    bufPool.aopt_init(aopt_sim::rt::queue_handle{}, aopt_sim::rt::queue_handle{}, len, site);
    return true;
  }
  template <class T, class U>
  bool InitBufPool(T& bufPool, uint32_t len, U& shareBuf,
                   aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    bufPool.aopt_init(aopt_sim::rt::queue_handle{}, shareBuf.aopt_handle(), len, site);
    return true;
  }
  void Init() {}
  void Destroy() {}

  template <HardEvent evt>
  TEventID AllocEventID(aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return aopt_sim::rt::event_alloc(evt, site);
  }
  template <HardEvent evt>
  void ReleaseEventID(TEventID id,
                      aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    aopt_sim::rt::event_release(evt, id, site);
  }
  template <HardEvent evt>
  TEventID FetchEventID(aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return aopt_sim::rt::event_fetch(evt, site);
  }
  TEventID FetchEventID(HardEvent evt,
                        aopt_sim::rt::call_site site = aopt_sim::rt::call_site(__builtin_LINE())) {
    return aopt_sim::rt::event_fetch(evt, site);
  }

 private:
  static bool init_queue(detail::queue_base& que, uint8_t num, uint32_t len,
                         aopt_sim::rt::call_site site) {
    que.aopt_bind(aopt_sim::rt::pipe_init_queue(que.aopt_src(), que.aopt_dst(), que.aopt_depth(),
                                                num, len, site));
    return true;
  }
};

inline TPipe* GetTPipePtr() {
  return static_cast<TPipe*>(aopt_sim::rt::current_pipe());
}

}  // namespace AscendC
