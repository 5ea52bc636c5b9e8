// The tree-sitter runtime's and grammar's allocations (ts_malloc, ts_calloc,
// ts_realloc, ts_free: src/lint/CMakeLists.txt points them here), served from
// pools of each thread. The parser makes and frees a node per token and grows
// small arrays all the time; glibc's malloc and free were 9-11% of lint's
// time (docs/lint.md, "Measured"). Blocks up to 1 KiB come from 256 KiB
// chunks, one free list per size in steps of 16 bytes, without locks: a
// thread frees what it allocated (each lint thread parses and deletes its own
// trees, and its parser is destroyed before its pools, which were made first).
// Larger blocks go to malloc. Chunks go back when the thread ends. Under
// AddressSanitizer everything goes to malloc, where it can check it.
#include "alloc.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define DEVCHECK_LINT_PLAIN_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEVCHECK_LINT_PLAIN_MALLOC 1
#endif

namespace {

#ifndef DEVCHECK_LINT_PLAIN_MALLOC

constexpr std::size_t kGrain = 16;    // block sizes are multiples of this, in bytes
constexpr std::size_t kClasses = 64;  // pooled sizes: up to kClasses * kGrain bytes
constexpr std::size_t kChunk = std::size_t{256} * 1024;  // carved into blocks, in bytes

// Before each block: its size class (0: a block of malloc's), and for those
// its size in bytes. 16 bytes, so that blocks stay aligned as malloc's are.
struct alignas(16) Header {
  uint32_t size_class;
  uint32_t unused;
  uint64_t size;
};

struct Pools {
  void* free[kClasses + 1] = {};
  char* next = nullptr;
  char* end = nullptr;
  std::vector<void*> chunks;
  Pools() = default;
  Pools(const Pools&) = delete;
  Pools& operator=(const Pools&) = delete;
  ~Pools() {
    for (void* chunk : chunks) std::free(chunk);
  }
};

// Each thread's pools, made on its first allocation. Reached through a
// plain pointer: a thread_local object with a destructor is reached through
// a call that checks it was made (0.35% of lint's instructions, one per
// allocation and per free).
thread_local Pools* current = nullptr;

Pools& make_pools() {
  thread_local Pools pools;
  current = &pools;
  return pools;
}

Pools& pools() {
  Pools* p = current;
  return p != nullptr ? *p : make_pools();
}

Header* header(void* block) { return static_cast<Header*>(block) - 1; }

void* allocate(std::size_t size) {
  const std::size_t size_class = (size + kGrain - 1) / kGrain;
  if (size_class > kClasses || size == 0) {
    auto* h = static_cast<Header*>(std::malloc(sizeof(Header) + size));
    if (h == nullptr) return nullptr;
    h->size_class = 0;
    h->size = size;
    return h + 1;
  }
  Pools& p = pools();
  if (void* block = p.free[size_class]) {
    std::memcpy(&p.free[size_class], block, sizeof(void*));
    return block;
  }
  const std::size_t bytes = sizeof(Header) + size_class * kGrain;
  if (p.next == nullptr || static_cast<std::size_t>(p.end - p.next) < bytes) {
    auto* chunk = static_cast<char*>(std::malloc(kChunk));
    if (chunk == nullptr) return nullptr;
    p.chunks.push_back(chunk);
    p.next = chunk;
    p.end = chunk + kChunk;
  }
  auto* h = reinterpret_cast<Header*>(p.next);
  p.next += bytes;
  h->size_class = static_cast<uint32_t>(size_class);
  return h + 1;
}

void release(void* block) {
  if (block == nullptr) return;
  Header* h = header(block);
  if (h->size_class == 0) {
    std::free(h);
    return;
  }
  Pools& p = pools();
  std::memcpy(block, &p.free[h->size_class], sizeof(void*));
  p.free[h->size_class] = block;
}

std::size_t capacity(void* block) {
  const Header* h = header(block);
  return h->size_class == 0 ? h->size : h->size_class * kGrain;
}

#endif  // DEVCHECK_LINT_PLAIN_MALLOC

}  // namespace

extern "C" {

void* devcheck_ts_malloc(std::size_t size) {
#ifdef DEVCHECK_LINT_PLAIN_MALLOC
  return std::malloc(size);
#else
  return allocate(size);
#endif
}

void* devcheck_ts_calloc(std::size_t count, std::size_t size) {
#ifdef DEVCHECK_LINT_PLAIN_MALLOC
  return std::calloc(count, size);
#else
  if (size != 0 && count > SIZE_MAX / size) return nullptr;
  void* block = allocate(count * size);
  if (block != nullptr) std::memset(block, 0, count * size);
  return block;
#endif
}

void* devcheck_ts_realloc(void* block, std::size_t size) {
#ifdef DEVCHECK_LINT_PLAIN_MALLOC
  return std::realloc(block, size);
#else
  if (block == nullptr) return allocate(size);
  const std::size_t have = capacity(block);
  if (size <= have && size != 0) return block;
  void* bigger = allocate(size);
  if (bigger == nullptr) return nullptr;
  std::memcpy(bigger, block, have < size ? have : size);
  release(block);
  return bigger;
#endif
}

void devcheck_ts_free(void* block) {
#ifdef DEVCHECK_LINT_PLAIN_MALLOC
  std::free(block);
#else
  release(block);
#endif
}

}  // extern "C"
