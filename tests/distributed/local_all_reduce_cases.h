#pragma once
// What local_all_reduce_worker.cc averages and local_all_reduce_test.cc
// checks: dtypes and sizes around the segment's cache-line chunking, each
// rank's input a function of its rank and the round.

#include <ATen/ATen.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace devcheck::testing {

struct ReduceCase {
  at::ScalarType dtype;
  int64_t numel;
};

inline std::vector<ReduceCase> reduce_cases() {
  std::vector<ReduceCase> cases;
  for (const at::ScalarType dtype : {at::kFloat, at::kDouble, at::kBFloat16}) {
    for (const int64_t numel : {1, 15, 16, 17, 1000, 65537}) cases.push_back({dtype, numel});
  }
  return cases;
}

// The largest case in bytes (65537 float64 values).
inline constexpr size_t kLargestCaseBytes = 65537 * 8;

inline at::Tensor case_input(const ReduceCase& c, int rank, int round) {
  return at::arange(c.numel, at::kDouble).mul(rank + 1).add(0.25 * rank + round).sin().to(c.dtype);
}

}  // namespace devcheck::testing
