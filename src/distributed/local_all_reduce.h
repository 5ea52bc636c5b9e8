#pragma once
// An all-reduce between ranks of one machine through a shared memory segment,
// for gradients in host memory (the CPU and the fake device): each rank sums
// its own chunk of every rank's tensor and writes the mean into every rank's
// tensor. Two barriers per call, on futexes in the segment; no sockets, no
// extra copies through the kernel. Gloo's TCP loopback costs ~3 ms for 1 MB on
// a 2-core machine; this is memory bandwidth.
//
// A tensor whose memory lies in the segment (adopt(): the Reducer's buckets
// are moved there once) is read and written where it is, by every rank; any
// other tensor is copied into this rank's slot of the segment and back.
//
// The segment (shm_segment.h) is created by rank 0 and unlinked as soon as
// every rank has mapped it, so nothing is left in /dev/shm when a rank dies.

#include <ATen/core/Tensor.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "devcheck/distributed.h"

namespace devcheck::detail {

class ShmMapping;

class LocalAllReduce {
 public:
  // Collective: every rank of `group` calls it, `wanted` or not. The segment
  // has a slot per rank for tensors of up to `capacity_bytes` that are copied
  // in, and an arena per rank of `arena_bytes` for tensors adopt() moves
  // there (none when /dev/shm has room for the slots only). Every rank
  // returns the same answer: a connected LocalAllReduce, or nullptr with
  // `*declined` saying why (a rank did not want it, ranks on several
  // machines, no room in /dev/shm, a world of one, ...).
  static std::unique_ptr<LocalAllReduce> connect(const ProcessGroup& group, size_t capacity_bytes,
                                                 size_t arena_bytes, bool wanted,
                                                 std::string* declined);
  ~LocalAllReduce();
  LocalAllReduce(const LocalAllReduce&) = delete;
  LocalAllReduce& operator=(const LocalAllReduce&) = delete;

  // Slots, arenas and the blocks adopt() takes are whole cache lines of
  // this many bytes (so no two ranks write into one line).
  static constexpr size_t kAlignment = 64;

  size_t capacity() const { return capacity_; }
  // Bytes of this rank's arena (0: none).
  size_t arena_capacity() const;

  // Moves the memory of `tensor`'s storage (contiguous, host memory: the CPU
  // or the fake device, and all of its storage) into this rank's arena, so
  // that every tensor and view over that storage (a Reducer bucket and the
  // gradients that are views of it) now lives in the segment and
  // all_reduce_mean needs no copy. Returns whether the storage is in the
  // arena: true at once when it already is; false, changing nothing, when
  // the tensor does not qualify or the arena has no room left. The arena's
  // memory is returned when the storage is freed, and the segment stays
  // mapped for as long as any adopted storage lives, this object or not.
  // Not while another thread uses the storage.
  bool adopt(const at::Tensor& tensor);

  // Marks this rank alive for as long as the calling thread lives (the thread
  // that will call all_reduce_mean): a rank waiting for this one in
  // all_reduce_mean throws as soon as that thread or its process has ended
  // (a robust mutex in the segment), instead of waiting out the timeout.
  // Once, on that thread.
  void hold_alive();

  // How long a thread waiting for the other ranks spins before it sleeps on
  // a futex, when the caller does not say: long enough for ranks that arrive
  // together, short enough to leave the core to another thread of this rank.
  static constexpr std::chrono::microseconds kShortSpin{50};

  // Replaces `tensor` (contiguous, in host memory; at most capacity() bytes
  // unless adopted) by the mean over ranks of every rank's `tensor`; every
  // rank gets the same bits. Ranks may differ in which of their tensors are
  // adopted. Blocks until every rank has called it, spinning for up to `spin`
  // (each of its two waits) before sleeping: a sleeping thread gives its core
  // back, but waking it takes a scheduler pass, and on a virtual machine an
  // idle vCPU can take milliseconds to wake. Throws c10::Error, as c10d
  // does for Gloo, naming the rank waited for: after the group's timeout, as
  // soon as that rank's hold_alive() thread has ended, or when `stopping`
  // becomes true while waiting (both checked while sleeping, so at most
  // `spin` late). One thread at a time; every rank in the same order.
  void all_reduce_mean(const at::Tensor& tensor, const std::atomic<bool>* stopping = nullptr,
                       std::chrono::microseconds spin = kShortSpin);

  // The calls of all_reduce_mean so far, and where their time went: waiting
  // for the other ranks (both waits) or this rank's own work (the copies of
  // tensors not adopted, averaging its chunk). Any thread, at any time.
  GradientSyncTime time() const;

 private:
  LocalAllReduce(int rank, int world, size_t capacity, std::chrono::milliseconds timeout,
                 std::shared_ptr<ShmMapping> mapping);
  // Waits until every rank's counter `which` (0 arrived, 1 reduced) has reached `sequence`.
  void wait_all(int which, uint32_t sequence, const std::atomic<bool>* stopping,
                std::chrono::microseconds spin) const;
  void publish(int which, uint32_t sequence);
  unsigned char* slot(int rank) const;
  // Whether `rank`'s alive thread (hold_alive) has ended.
  bool gone(int rank) const;

  int rank_;
  int world_;
  size_t capacity_;  // bytes per slot, a multiple of 64
  std::chrono::milliseconds timeout_;
  std::shared_ptr<ShmMapping> mapping_;  // shared with the adopted storages
  unsigned char* base_;
  uint32_t sequence_ = 0;
  std::atomic<int64_t> calls_{0};
  std::atomic<int64_t> waiting_ns_{0};
  std::atomic<int64_t> own_ns_{0};
  mutable std::vector<bool> gone_;  // ranks found gone (their mutex is now ours)
};

}  // namespace devcheck::detail
