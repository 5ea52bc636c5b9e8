#pragma once
// float16 and bfloat16 (the 16-bit floats, "Half" below) on the fake
// backends where the CPU lacks what a GPU has. A fake op runs LibTorch's CPU
// kernel, and a CPU kernel may have no Half version (1.13: addmm, mm,
// convolutions, relu, sigmoid, ...; no BFloat16 one: 1.13's mse_loss, prod)
// or refuse a path only CUDA's kernel takes (softmax and log_softmax of a
// Half input into a float32 result, and their backward into a Half gradient:
// what softmax(x, dim, dtype=torch.float32) and autocast's softmax run). Such
// an op runs again with its 16-bit tensors (and 16-bit dtype arguments) in
// float32 and its results are cast to the dtypes the op returns, as its Meta
// kernel says: CUDA's kernels compute in float32 too and store in the
// output's dtype, so the values equal a GPU's but for the last bits.

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/util/Exception.h>
#include <c10/util/FunctionRef.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace devcheck::detail {

// Where the arguments of an op hold float16.
enum class HalfUse : std::uint8_t {
  kNone,
  kTensors,    // a Half tensor
  kDtypeOnly,  // only a dtype argument: a Half result from float32 tensors
               // (softmax's backward into a Half input's gradient)
};

// Where the arguments of `op` (the stack from `first` on) hold float16.
HalfUse half_use(const c10::OperatorHandle& op, const torch::jit::Stack& stack, std::size_t first);

// Whether `e`, thrown by a CPU kernel for arguments that hold float16 as
// `use` says, says the CPU lacks the Half kernel or the Half path a GPU has
// (so the op may run in float32 instead).
bool cpu_lacks_half_path(const c10::Error& e, HalfUse use);

// Whether the CPU's kernel is known to fail `op` for these 16-bit
// arguments (the stack from `first` on) where a GPU computes it, with an
// error cpu_lacks_half_path cannot tell from a real one: 1.13's transposed
// bfloat16 convolution and its backward (compat.h). Such an op runs in
// float32 at once.
bool cpu_fails_half_path(const c10::OperatorHandle& op, const torch::jit::Stack& stack,
                         std::size_t first);

// Throws the message of CUDA's kernel where it refuses a dtype mix of the
// op's arguments (the stack from `first` on, which hold float16) that the
// CPU's kernel does not check before it fails on Half, or a float32 run
// would make one dtype: mm's and addmm's matrices in LibTorch 1.13
// (compat.h). Nothing for any other op.
void check_half_as_a_gpu_does(const c10::OperatorHandle& op, const torch::jit::Stack& stack,
                              std::size_t first);

// Runs `op` with `args` (its arguments as they went to the CPU kernel, which
// failed with cpu_lacks_half_path) in float32 and leaves its results on
// `stack` (cut back to where the arguments began) in the dtypes the op
// returns: Half tensors and Half dtype
// arguments become float32, a half_to_float flag becomes false, arguments
// the op writes get the float32 values back. `run_cpu` runs the CPU kernel
// on the stack and returns how many values it left. Returns that count.
std::size_t run_in_float32(const c10::OperatorHandle& op, torch::jit::Stack* stack,
                           const std::vector<c10::IValue>& args,
                           c10::function_ref<std::size_t(torch::jit::Stack*)> run_cpu);

}  // namespace devcheck::detail
