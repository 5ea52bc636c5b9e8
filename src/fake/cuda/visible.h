#pragma once
// CUDA_VISIBLE_DEVICES over fake CUDA's devices, as the CUDA runtime reads it
// when it initialises: the fake count a program asked for (devcheck run
// --fake-cuda=N, fake_cuda(n)) is the machine's, this variable chooses which
// of them the process sees and in what order.

#include <vector>

namespace devcheck::detail {

// The name of the variable.
inline constexpr const char* kCudaVisibleDevices = "CUDA_VISIBLE_DEVICES";

// The devices of a machine with `count` of them that `value` (the variable's
// text; null when it is unset) makes visible, as their machine indices in
// the order the process numbers them (cuda:0 is the first). Unset: all of
// them, in order. Otherwise a comma-separated list read entry by entry as
// the runtime (and torch.cuda's _parse_visible_devices) reads it: an entry
// is the number it starts with after blanks (strtoul: "1gpu" is 1); the list
// ends at the first entry that is no number, is negative or names no device
// of the machine ("", "-1": none; "0,-1,1": cuda:0 only); an index named
// twice hides every device ("0,0": none); UUIDs ("GPU-...", "MIG-...") name
// real GPUs, none of which is a fake device: none. Thread-safe.
std::vector<int> cuda_visible_devices(const char* value, int count);

}  // namespace devcheck::detail
