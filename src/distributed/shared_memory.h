#pragma once
// An all-reduce between ranks of one machine through a shared memory segment,
// for gradients in host memory (the CPU and the fake device): a bucket is
// copied in, each rank sums its own chunk of every rank's copy, and each rank
// copies the summed chunks out. Two barriers per call, on futexes in the
// segment; no sockets, no extra copies through the kernel. Gloo's TCP
// loopback costs ~3 ms for 1 MB on a 2-core machine; this is memory bandwidth.
//
// The segment is created by rank 0 and unlinked as soon as every rank has
// mapped it, so nothing is left in /dev/shm when a rank dies.

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

class LocalAllReduce {
 public:
  // Collective: every rank of `group` calls it, `wanted` or not. The segment
  // holds buckets of up to `capacity_bytes`. Every rank returns the same
  // answer: a connected LocalAllReduce, or nullptr with `*declined` saying
  // why (a rank did not want it, ranks on several machines, no room in
  // /dev/shm, a world of one, ...).
  static std::unique_ptr<LocalAllReduce> connect(const ProcessGroup& group, size_t capacity_bytes,
                                                 bool wanted, std::string* declined);
  ~LocalAllReduce();
  LocalAllReduce(const LocalAllReduce&) = delete;
  LocalAllReduce& operator=(const LocalAllReduce&) = delete;

  size_t capacity() const { return capacity_; }

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

  // Replaces `tensor` (contiguous, in host memory, at most capacity() bytes)
  // by the mean over ranks of every rank's `tensor`; every rank gets the same
  // bits. Blocks until every rank has called it, spinning for up to `spin`
  // (each of its two waits) before sleeping: a sleeping thread gives its core
  // back, but waking it takes a scheduler pass, and on a virtual machine an
  // idle vCPU can take milliseconds to wake. Throws c10::Error, as c10d
  // does for Gloo, naming the rank waited for: after the group's timeout, as
  // soon as that rank's hold_alive() thread has ended, or when `stopping`
  // becomes true while waiting (both checked while sleeping, so at most
  // `spin` late). One thread at a time; every rank in the same order.
  void all_reduce_mean(const at::Tensor& tensor, const std::atomic<bool>* stopping = nullptr,
                       std::chrono::microseconds spin = kShortSpin);

 private:
  struct Segment;
  LocalAllReduce(int rank, int world, size_t capacity, std::chrono::milliseconds timeout,
                 void* base, size_t bytes);
  // Waits until every rank's counter `which` (0 arrived, 1 reduced) has reached `sequence`.
  void wait_all(int which, uint32_t sequence, const std::atomic<bool>* stopping,
                std::chrono::microseconds spin) const;
  void publish(int which, uint32_t sequence);
  unsigned char* slot(uint32_t sequence, int rank) const;
  // Whether `rank`'s alive thread (hold_alive) has ended.
  bool gone(int rank) const;

  int rank_;
  int world_;
  size_t capacity_;  // bytes per slot, a multiple of 64
  std::chrono::milliseconds timeout_;
  void* base_;
  size_t bytes_;
  uint32_t sequence_ = 0;
  mutable std::vector<bool> gone_;  // ranks found gone (their mutex is now ours)
};

}  // namespace devcheck::detail
