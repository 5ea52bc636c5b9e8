// LocalAllReduce's segment in /dev/shm (shm_segment.h): rank 0 makes, sizes,
// maps and stamps it; the other ranks map it and check the stamp (its name
// and a random token reach them through the store, local_all_reduce.cc).
#include "distributed/shm_segment.h"

#include <c10/core/Storage.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>
#include <utility>

namespace devcheck::detail {
namespace {

constexpr uint64_t kMagic = 0x6d68732d6b636476;  // "vdck-shm"

// Robust, process-shared; by rank 0 before any other rank maps the segment.
bool init_alive(void* base, int world) {
  pthread_mutexattr_t attr;
  if (::pthread_mutexattr_init(&attr) != 0) return false;
  bool ok = ::pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) == 0 &&
            ::pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) == 0;
  for (int r = 0; ok && r < world; ++r) {
    ok = ::pthread_mutex_init(ShmSegment::alive(base, world, r), &attr) == 0;
  }
  ::pthread_mutexattr_destroy(&attr);
  return ok;
}

// `rank`'s mapping of a segment mapped at `base`.
std::shared_ptr<ShmMapping> mapping_of(void* base, int rank, int world, size_t capacity,
                                       size_t arena) {
  auto* own_arena = static_cast<unsigned char*>(base) + ShmSegment::arenas_offset(world, capacity) +
                    static_cast<size_t>(rank) * arena;
  return std::make_shared<ShmMapping>(base, ShmSegment::bytes(world, capacity, arena), own_arena,
                                      arena);
}

}  // namespace

std::shared_ptr<ShmMapping> ShmSegment::create(const std::string& name, uint64_t token, int world,
                                               size_t capacity, size_t* arena, bool* created,
                                               std::string* problem) {
  *created = false;
  const int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    *problem = fmt::format("rank 0 cannot create {} in /dev/shm: {}", name, std::strerror(errno));
    return nullptr;
  }
  *created = true;
  std::shared_ptr<ShmMapping> mapping;
  struct statvfs fs {};
  const bool limited = ::fstatvfs(fd, &fs) == 0 && fs.f_blocks > 0;
  const auto room = static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize;
  // Checked first: a tmpfs fills page by page before fallocate gives up.
  // Without room for the arenas, slots only (every tensor copied in).
  if (limited && room < bytes(world, capacity, *arena)) *arena = 0;
  const size_t size = bytes(world, capacity, *arena);
  if (limited && room < size) {
    *problem = fmt::format("/dev/shm has no room for {} bytes ({} free)", size, room);
  } else if (const int err = ::posix_fallocate(fd, 0, static_cast<off_t>(size)); err != 0) {
    *problem = fmt::format("/dev/shm has no room for {} bytes ({})", size, std::strerror(err));
  } else {
    void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
      *problem = fmt::format("rank 0 cannot map {}: {}", name, std::strerror(errno));
    } else {
      mapping = mapping_of(base, 0, world, capacity, *arena);
      Header* stamp = header(base);
      stamp->magic = kMagic;
      stamp->token = token;
      stamp->world = static_cast<uint64_t>(world);
      stamp->capacity = capacity;
      stamp->arena = *arena;
      if (!init_alive(base, world)) {
        *problem = "rank 0 cannot make process-shared robust mutexes";
        mapping.reset();
      }
    }
  }
  ::close(fd);
  return mapping;
}

std::shared_ptr<ShmMapping> ShmSegment::open(const std::string& name, uint64_t token, int rank,
                                             int world, size_t capacity, size_t arena,
                                             std::string* problem) {
  const int fd = ::shm_open(name.c_str(), O_RDWR, 0);
  if (fd < 0) {
    *problem =
        fmt::format("rank {} cannot open {} in /dev/shm: {}", rank, name, std::strerror(errno));
    return nullptr;
  }
  std::shared_ptr<ShmMapping> mapping;
  const size_t size = bytes(world, capacity, arena);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != size) {
    *problem = fmt::format("rank {} found {} with another size", rank, name);
  } else {
    void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
      *problem = fmt::format("rank {} cannot map {}: {}", rank, name, std::strerror(errno));
    } else {
      mapping = mapping_of(base, rank, world, capacity, arena);
      const Header* stamp = header(base);
      if (stamp->magic != kMagic || stamp->token != token ||
          stamp->world != static_cast<uint64_t>(world) || stamp->capacity != capacity ||
          stamp->arena != arena) {
        *problem = fmt::format("rank {} opened {}, which is not rank 0's segment", rank, name);
        mapping.reset();
      }
    }
  }
  ::close(fd);
  return mapping;
}

void ShmSegment::unlink(const std::string& name) { ::shm_unlink(name.c_str()); }

ShmMapping::ShmMapping(void* base, size_t bytes, unsigned char* arena, size_t arena_bytes)
    : base_(base), bytes_(bytes), arena_(arena), arena_bytes_(arena_bytes) {
  if (arena_bytes > 0) free_blocks_.emplace(0, arena_bytes);
}

ShmMapping::~ShmMapping() { ::munmap(base_, bytes_); }

std::optional<size_t> ShmMapping::allocate(size_t n) {
  n = ShmSegment::whole_lines(std::max<size_t>(n, 1));
  const std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = free_blocks_.begin(); it != free_blocks_.end(); ++it) {
    if (it->second < n) continue;
    const size_t offset = it->first;
    const size_t rest = it->second - n;
    free_blocks_.erase(it);
    if (rest > 0) free_blocks_.emplace(offset + n, rest);
    return offset;
  }
  return std::nullopt;
}

void ShmMapping::release(size_t offset, size_t n) {
  n = ShmSegment::whole_lines(std::max<size_t>(n, 1));
  const std::lock_guard<std::mutex> lock(mutex_);
  auto next = free_blocks_.lower_bound(offset);
  if (next != free_blocks_.end() && next->first == offset + n) {
    n += next->second;
    next = free_blocks_.erase(next);
  }
  if (next != free_blocks_.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {
      previous->second += n;
      return;
    }
  }
  free_blocks_.emplace(offset, n);
}

void ShmMapping::delete_block(void* context) {
  const std::unique_ptr<Block> block(static_cast<Block*>(context));
  block->mapping->release(block->offset, block->bytes);
}

bool ShmMapping::adopt(const at::Tensor& tensor) {
  if (!tensor.defined() || !tensor.has_storage()) return false;
  c10::StorageImpl* storage = tensor.storage().unsafeGetStorageImpl();
  const size_t nbytes = storage->nbytes();
  const auto* data = static_cast<const unsigned char*>(storage->data());
  if (data != nullptr && in_arena(data, nbytes)) return true;
  const c10::DeviceType type = storage->device().type();
  if ((type != c10::kCPU && type != c10::kPrivateUse1) || !tensor.is_contiguous() ||
      tensor.storage_offset() != 0 ||
      static_cast<size_t>(tensor.numel()) * tensor.element_size() != nbytes || nbytes == 0) {
    return false;
  }
  const std::optional<size_t> offset = allocate(nbytes);
  if (!offset) return false;
  unsigned char* block = arena_ + *offset;
  std::memcpy(block, data, nbytes);
  // The storage keeps its identity (views, is_alias_of, the Reducer's
  // bookkeeping); only its memory changes, and the old memory is freed.
  storage->set_data_ptr_noswap(c10::DataPtr(block, new Block{shared_from_this(), *offset, nbytes},
                                            &ShmMapping::delete_block, storage->device()));
  return true;
}

}  // namespace devcheck::detail
