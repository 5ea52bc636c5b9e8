// The CUDA build's device checks, per op, for the LibTorch version compiled
// against: generated from that version's native_functions.yaml by
// scripts/gen-fake-cuda-checks.py (tables in fake_cuda_checks_*.inc).

#include <string>
#include <unordered_map>

#include "detail/compat.h"
#include "fake/checks.h"

namespace devcheck::detail {
namespace {

const CudaCheckRule kRules[] = {
#if DEVCHECK_TORCH_AT_LEAST(2, 14)
#include "fake/cuda/checks_2_14.inc"
#elif DEVCHECK_TORCH_AT_LEAST(2, 6)
#include "fake/cuda/checks_2_6.inc"
#else
#include "fake/cuda/checks_1_13.inc"
#endif
};

}  // namespace

const CudaCheckRule* cuda_check_rule(const std::string& op_with_overload) {
  static const auto* index = [] {
    auto* map = new std::unordered_map<std::string, const CudaCheckRule*>();
    for (const CudaCheckRule& rule : kRules) map->emplace(rule.op, &rule);
    return map;
  }();
  auto it = index->find(op_with_overload);
  return it == index->end() ? nullptr : it->second;
}

}  // namespace devcheck::detail
