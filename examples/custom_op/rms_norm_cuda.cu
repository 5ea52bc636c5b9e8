// devcheck::rms_norm's CUDA kernels (built when the Torch found has CUDA).
// Forward: one block per row; the block sums the row's squares in float,
// then writes y. Backward: one block per row for grad_x (a block sum of
// g * w * x), and grad_weight as column sums over blocks of rows, added up
// by a second small pass. float32, float16, bfloat16 (and float64).

#include <ATen/Dispatch.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros_like.h>
#include <c10/cuda/CUDAException.h>
#include <torch/library.h>

#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>

#include "devcheck/op.h"
#include "rms_norm_kernels.h"

namespace devcheck::custom_op {
namespace {

constexpr int kThreads = 256;
constexpr int kWarp = 32;
// Rows summed by one block of the grad_weight pass.
constexpr int kRowsPerBlock = 32;

template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename A>
__device__ A warp_sum(A v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

// The sum of `v` over the block, returned to every thread.
template <typename A>
__device__ A block_sum(A v) {
  __shared__ A partial[kThreads / kWarp];
  __shared__ A total;
  const int lane = threadIdx.x % kWarp;
  const int warp = threadIdx.x / kWarp;
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    A s = lane < blockDim.x / kWarp ? partial[lane] : A(0);
    s = warp_sum(s);
    if (lane == 0) total = s;
  }
  __syncthreads();
  return total;
}

template <typename T>
__global__ void forward_kernel(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y,
                               acc_t<T>* __restrict__ rstd, int64_t d, double eps) {
  using A = acc_t<T>;
  const int64_t row = blockIdx.x;
  const T* xr = x + row * d;
  A ss = 0;
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    const A v = static_cast<A>(xr[i]);
    ss += v * v;
  }
  const A rs = A(1) / sqrt(block_sum(ss) / static_cast<A>(d) + static_cast<A>(eps));
  if (threadIdx.x == 0) rstd[row] = rs;
  T* yr = y + row * d;
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    yr[i] = static_cast<T>(static_cast<A>(xr[i]) * rs * static_cast<A>(w[i]));
  }
}

template <typename T>
__global__ void grad_x_kernel(const T* __restrict__ g, const T* __restrict__ x,
                              const T* __restrict__ w, const acc_t<T>* __restrict__ rstd,
                              T* __restrict__ gx, int64_t d) {
  using A = acc_t<T>;
  const int64_t row = blockIdx.x;
  const T* gr = g + row * d;
  const T* xr = x + row * d;
  A dot = 0;
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    dot += static_cast<A>(gr[i]) * static_cast<A>(w[i]) * static_cast<A>(xr[i]);
  }
  const A rs = rstd[row];
  const A c = rs * rs * block_sum(dot) / static_cast<A>(d);
  T* gxr = gx + row * d;
  for (int64_t i = threadIdx.x; i < d; i += blockDim.x) {
    gxr[i] = static_cast<T>(
        rs * (static_cast<A>(gr[i]) * static_cast<A>(w[i]) - static_cast<A>(xr[i]) * c));
  }
}

// partial[b, j] = sum over the rows of block b of g[r, j] * x[r, j] * rstd[r]
// (threads walk columns, so reads are coalesced).
template <typename T>
__global__ void grad_weight_partial_kernel(const T* __restrict__ g, const T* __restrict__ x,
                                           const acc_t<T>* __restrict__ rstd,
                                           acc_t<T>* __restrict__ partial, int64_t rows,
                                           int64_t d) {
  using A = acc_t<T>;
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= d) return;
  const int64_t begin = static_cast<int64_t>(blockIdx.y) * kRowsPerBlock;
  const int64_t end = begin + kRowsPerBlock < rows ? begin + kRowsPerBlock : rows;
  A sum = 0;
  for (int64_t r = begin; r < end; ++r) {
    sum += static_cast<A>(g[r * d + j]) * static_cast<A>(x[r * d + j]) * rstd[r];
  }
  partial[static_cast<int64_t>(blockIdx.y) * d + j] = sum;
}

std::tuple<at::Tensor, at::Tensor> rms_norm_forward_cuda(const at::Tensor& x,
                                                         const at::Tensor& weight, double eps) {
  const auto inputs = DEVCHECK_OP_INPUTS("devcheck::rms_norm_forward", x, weight);
  check_rms_norm_args("devcheck::rms_norm_forward", x, weight, eps);
  const at::Tensor xc = x.contiguous();
  const at::Tensor wc = weight.contiguous();
  at::Tensor y;
  at::Tensor rstd;
  std::tie(y, rstd) = empty_forward_outputs(xc);  // named: kernels' lambdas capture them
  const int64_t d = x.size(-1);
  const int64_t rows = rstd.numel();
  if (rows == 0 || d == 0) {
    // The mean of no squares is 0/0, as the CPU kernel computes it.
    rstd.fill_(std::numeric_limits<double>::quiet_NaN());
    return {y, rstd};
  }
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::kHalf, at::kBFloat16, x.scalar_type(), "rms_norm_forward_cuda", [&] {
        forward_kernel<scalar_t><<<rows, kThreads, 0, stream>>>(
            xc.data_ptr<scalar_t>(), wc.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(),
            rstd.data_ptr<acc_t<scalar_t>>(), d, eps);
      });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  DEVCHECK_OP_OUTPUTS(inputs, y, rstd);
  return {y, rstd};
}

std::tuple<at::Tensor, at::Tensor> rms_norm_backward_cuda(const at::Tensor& grad_y,
                                                          const at::Tensor& x,
                                                          const at::Tensor& weight,
                                                          const at::Tensor& rstd) {
  const auto inputs = DEVCHECK_OP_INPUTS("devcheck::rms_norm_backward", grad_y, x, weight, rstd);
  const BackwardArgs args = contiguous_backward_args(grad_y, x, weight, rstd);
  const at::Tensor& gc = args.grad_y;
  const at::Tensor& xc = args.x;
  const at::Tensor& wc = args.weight;
  const at::Tensor& rc = args.rstd;
  at::Tensor grad_x = at::empty_like(xc, at::MemoryFormat::Contiguous);
  const int64_t d = x.size(-1);
  const int64_t rows = rstd.numel();
  if (rows == 0 || d == 0) {
    return {grad_x, at::zeros_like(wc, at::MemoryFormat::Contiguous)};
  }
  const int64_t row_blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  at::Tensor partial = at::empty({row_blocks, d}, rc.options());
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND2(
      at::kHalf, at::kBFloat16, x.scalar_type(), "rms_norm_backward_cuda", [&] {
        grad_x_kernel<scalar_t><<<rows, kThreads, 0, stream>>>(
            gc.data_ptr<scalar_t>(), xc.data_ptr<scalar_t>(), wc.data_ptr<scalar_t>(),
            rc.data_ptr<acc_t<scalar_t>>(), grad_x.data_ptr<scalar_t>(), d);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
        const dim3 grid(static_cast<unsigned>((d + kThreads - 1) / kThreads),
                        static_cast<unsigned>(row_blocks));
        grad_weight_partial_kernel<scalar_t><<<grid, kThreads, 0, stream>>>(
            gc.data_ptr<scalar_t>(), xc.data_ptr<scalar_t>(), rc.data_ptr<acc_t<scalar_t>>(),
            partial.data_ptr<acc_t<scalar_t>>(), rows, d);
        C10_CUDA_KERNEL_LAUNCH_CHECK();
      });
  at::Tensor grad_weight = partial.sum(0).to(x.scalar_type());
  DEVCHECK_OP_OUTPUTS(inputs, grad_x, grad_weight);
  return {grad_x, grad_weight};
}

}  // namespace
}  // namespace devcheck::custom_op

TORCH_LIBRARY_IMPL(devcheck, CUDA, m) {
  m.impl("rms_norm_forward", TORCH_FN(devcheck::custom_op::rms_norm_forward_cuda));
  m.impl("rms_norm_backward", TORCH_FN(devcheck::custom_op::rms_norm_backward_cuda));
}
