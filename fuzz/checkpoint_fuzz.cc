// The checkpoint reader over untrusted bytes: the zip layer, the pickle
// scanner and tensor interpretation (Checkpoint::open), then, for files it
// accepts, load_tensors (every stored record mapped) and remap. Any input either reads or throws a
// devcheck::Error; nothing crashes, hangs or runs pickle code.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "checkpoint/load_tuning.h"
#include "devcheck/checkpoint.h"
#include "devcheck/error.h"
#include "devcheck/format/error.h"
#include "format/pickle_scan.h"

namespace {

std::string scratch_dir() {
  static const std::string dir = [] {
    char templ[] = "/tmp/devcheck-fuzz-XXXXXX";
    const char* made = ::mkdtemp(templ);
    if (made == nullptr) std::abort();
    return std::string(made);
  }();
  return dir;
}

}  // namespace

// Every stored, aligned record is mapped, not only those of 1 MiB or more:
// the inputs are small, and the mapping path (runs planned from the central
// directory, slices, their fallbacks) must see them too.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  devcheck::detail::set_map_min_bytes(1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // The pickle layer alone, on the raw bytes.
  try {
    devcheck::detail::scan_pickle(bytes, "fuzz");
  } catch (const devcheck::format::Error&) {
  } catch (const devcheck::detail::PickleTruncated&) {
  }
  // The whole reader, through a file descriptor like any checkpoint.
  const int fd = ::memfd_create("checkpoint", 0);
  if (fd < 0) std::abort();
  if (size > 0 && ::write(fd, data, size) != static_cast<ssize_t>(size)) std::abort();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    const devcheck::Checkpoint cp = devcheck::Checkpoint::open(path);
    (void)cp.to_text();
    (void)cp.to_json();
    if (!cp.has_errors()) {
      for (const auto& entry :
           devcheck::load_tensors(path, devcheck::MapLocation::to(c10::Device("cpu")))) {
        (void)entry;
      }
      const std::string out = scratch_dir() + "/out.pt";
      devcheck::remap(path, out,
                      devcheck::RemapOptions()
                          .map_location(devcheck::MapLocation::to(c10::Device("cpu")))
                          .strip_prefix("module.")
                          .rewrite_code(true)
                          .force(true));
      // What remap wrote must read back.
      (void)devcheck::Checkpoint::open(out);
      std::remove(out.c_str());
    }
  } catch (const devcheck::Error&) {
  }
  ::close(fd);
  return 0;
}
