#pragma once
// The device check a fake backend makes before each op, worded as LibTorch
// words it: fake CUDA as the CUDA build of the same LibTorch version does
// for that op, the fake accelerator as TensorIterator does.

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "fake/backend.h"

namespace devcheck::detail {

// Checks the devices of the op's arguments (on `stack` from `first`) and
// returns the fake device the op runs on; throws LibTorch's "Expected all
// tensors to be on the same device, but found at least two devices, ..."
// when they disagree.
c10::Device check_devices(FakeKind kind, const c10::OperatorHandle& op,
                          const torch::jit::Stack& stack, size_t first);

// index, index_put_ and _index_put_impl_ on a device copy the index tensors
// they are given on the CPU to that device before they index (make_info,
// ATen/native/TensorAdvancedIndexingUtils.h): a hidden host-to-device copy
// per index tensor that a program's ledger shows on a GPU. Fake CUDA, whose
// kernels replace CUDA's, makes the same copies through the dispatcher, so
// the sanitizer counts them under the op's name (the fake accelerator needs
// none: LibTorch's own structured index copies for it). `stack` from
// `first` holds the op's arguments; a list with an index on the CPU is
// replaced by a new one (the caller's is left alone). A boolean mask is
// copied as it is, where a GPU copies the int64 indices it expands to: the
// same count and direction, other bytes.
void move_cpu_indices(FakeKind kind, const c10::OperatorHandle& op, torch::jit::Stack& stack,
                      size_t first, c10::Device device);

// How a CUDA build checks one op's devices (generated from LibTorch's
// native_functions.yaml by scripts/gen-fake-cuda-checks.py; one table per
// LibTorch version).
struct CudaCheckRule {
  const char* op;  // "aten::mm", "aten::add.Tensor"
  // The CUDA wrapper that checks (c10::impl::check_and_update_common_device)
  // and is named in the message, "wrapper_mm"; nullptr where the op leaves
  // the check to TensorIterator (or to nothing).
  const char* method;
  const char* arguments;  // the arguments it checks, in order, comma-separated
};

// The rule for `op` in this LibTorch version's table; nullptr when the table
// has none (ops outside aten, ops without a CUDA kernel).
const CudaCheckRule* cuda_check_rule(const std::string& op_with_overload);

}  // namespace devcheck::detail
