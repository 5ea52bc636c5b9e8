#pragma once
// A testing and fuzzing hook of load_tensors (src/checkpoint/load.cc).

#include <cstdint>

namespace devcheck::detail {

/// The size from which load_tensors maps a stored, aligned record instead of
/// copying it: 1 MiB unless changed. Tests and the fuzzer lower it so that
/// small files reach the mapping path (runs of records, slices, and their
/// fallbacks). Set it while no load runs.
std::uint64_t map_min_bytes();
void set_map_min_bytes(std::uint64_t bytes);

}  // namespace devcheck::detail
