// The CPU kernel of devcheck::rms_norm, compiled once per CPU capability
// (CPU_CAPABILITY is DEFAULT or AVX2; CMakeLists.txt sets it and the flags).
// Rows run in parallel; each row is one pass for the sum of squares and one
// for the output (the row stays in L1), with float accumulation for bfloat16.
// The loops are written for the compiler's vectorizer rather than with
// at::vec::Vectorized: its AVX2 specialisation needs sleef.h, which Debian's
// LibTorch packages (1.13 and 2.6) do not ship, and its portable fallback
// goes through stack arrays (measured slower than these loops, docs/custom-ops.md).

#include <ATen/Dispatch.h>
#include <ATen/Parallel.h>
#include <c10/util/BFloat16.h>

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "rms_norm_kernels.h"

namespace devcheck::custom_op {
namespace CPU_CAPABILITY {
namespace {

template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

// Lanes per step: sums are kept in kLanes partial sums so the compiler can
// vectorize them (one step is two AVX2 registers of float, four of double)
// without reassociating floating-point math on its own.
constexpr int64_t kLanes = 16;

// sum(x[i] * x[i])
template <typename A>
A sum_squares(const A* __restrict x, int64_t n) {
  A acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) acc[k] += x[i + k] * x[i + k];
  }
  A sum = 0;
  for (int64_t k = 0; k < kLanes; ++k) sum += acc[k];
  for (; i < n; ++i) sum += x[i] * x[i];
  return sum;
}

// sum(g[i] * w[i] * x[i])
template <typename A>
A dot3(const A* __restrict g, const A* __restrict w, const A* __restrict x, int64_t n) {
  A acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int64_t k = 0; k < kLanes; ++k) acc[k] += g[i + k] * w[i + k] * x[i + k];
  }
  A sum = 0;
  for (int64_t k = 0; k < kLanes; ++k) sum += acc[k];
  for (; i < n; ++i) sum += g[i] * w[i] * x[i];
  return sum;
}

// y[i] = x[i] * r * w[i]
template <typename A>
void scale_row(const A* __restrict x, const A* __restrict w, A r, A* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * r * w[i];
}

// gx[i] = r * (g[i] * w[i] - x[i] * c);  pw[i] += g[i] * x[i] * r
template <typename A>
void backward_row(const A* __restrict g, const A* __restrict w, const A* __restrict x, A r, A c,
                  A* __restrict gx, A* __restrict pw, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    gx[i] = r * (g[i] * w[i] - x[i] * c);
    pw[i] += g[i] * x[i] * r;
  }
}

// A row of T seen as A: the row itself when T is A, else a converted copy.
template <typename T, typename A = acc_t<T>>
class RowIn {
 public:
  explicit RowIn(int64_t n) {
    if constexpr (!std::is_same_v<T, A>) buffer_.resize(static_cast<size_t>(n));
  }
  const A* operator()(const T* row, int64_t n) {
    if constexpr (std::is_same_v<T, A>) {
      return row;
    } else {
      for (int64_t i = 0; i < n; ++i) buffer_[static_cast<size_t>(i)] = static_cast<A>(row[i]);
      return buffer_.data();
    }
  }

 private:
  std::vector<A> buffer_;
};

// Where a row of A results goes before it is stored as T.
template <typename T, typename A = acc_t<T>>
class RowOut {
 public:
  explicit RowOut(int64_t n) {
    if constexpr (!std::is_same_v<T, A>) buffer_.resize(static_cast<size_t>(n));
  }
  A* target(T* row) {
    if constexpr (std::is_same_v<T, A>) {
      return row;
    } else {
      (void)row;
      return buffer_.data();
    }
  }
  void store(T* row, int64_t n) {
    if constexpr (!std::is_same_v<T, A>) {
      for (int64_t i = 0; i < n; ++i) row[i] = static_cast<T>(buffer_[static_cast<size_t>(i)]);
    } else {
      (void)row;
      (void)n;
    }
  }

 private:
  std::vector<A> buffer_;
};

// Rows per parallel task: about 32768 elements, ATen's grain size.
int64_t rows_per_task(int64_t d) { return std::max<int64_t>(1, 32768 / std::max<int64_t>(d, 1)); }

template <typename T>
void forward(const T* x, const T* w, T* y, acc_t<T>* rstd, int64_t rows, int64_t d, double eps) {
  using A = acc_t<T>;
  RowIn<T> weight_in(d);
  const A* wa = weight_in(w, d);
  at::parallel_for(0, rows, rows_per_task(d), [&](int64_t begin, int64_t end) {
    RowIn<T> x_in(d);
    RowOut<T> y_out(d);
    for (int64_t r = begin; r < end; ++r) {
      const A* xr = x_in(x + r * d, d);
      const A rs = A(1) / std::sqrt(sum_squares(xr, d) / static_cast<A>(d) + static_cast<A>(eps));
      rstd[r] = rs;
      scale_row(xr, wa, rs, y_out.target(y + r * d), d);
      y_out.store(y + r * d, d);
    }
  });
}

// grad_weight is a sum over rows: each task sums its own block of rows into a
// row of `partial` (one per task, fixed by the row count and thread count, so
// a run is deterministic), then the blocks are added.
template <typename T>
void backward(const T* g, const T* x, const T* w, const acc_t<T>* rstd, T* gx, T* gw, int64_t rows,
              int64_t d) {
  using A = acc_t<T>;
  RowIn<T> weight_in(d);
  const A* wa = weight_in(w, d);
  const int64_t blocks = std::max<int64_t>(1, std::min<int64_t>(rows, at::get_num_threads()));
  std::vector<A> partial(static_cast<size_t>(blocks * d), A(0));
  at::parallel_for(0, blocks, 1, [&](int64_t begin, int64_t end) {
    RowIn<T> g_in(d), x_in(d);
    RowOut<T> gx_out(d);
    for (int64_t b = begin; b < end; ++b) {
      A* pw = partial.data() + b * d;
      for (int64_t r = rows * b / blocks; r < rows * (b + 1) / blocks; ++r) {
        const A* gr = g_in(g + r * d, d);
        const A* xr = x_in(x + r * d, d);
        const A rs = rstd[r];
        const A c = rs * rs * dot3(gr, wa, xr, d) / static_cast<A>(d);
        backward_row(gr, wa, xr, rs, c, gx_out.target(gx + r * d), pw, d);
        gx_out.store(gx + r * d, d);
      }
    }
  });
  RowOut<T> gw_out(d);
  A* sum = gw_out.target(gw);
  std::copy(partial.begin(), partial.begin() + d, sum);
  for (int64_t b = 1; b < blocks; ++b) {
    const A* p = partial.data() + b * d;
    for (int64_t i = 0; i < d; ++i) sum[i] += p[i];
  }
  gw_out.store(gw, d);
}

}  // namespace

void rms_norm_forward_kernel(const at::Tensor& x, const at::Tensor& weight, at::Tensor& y,
                             at::Tensor& rstd, double eps) {
  const int64_t d = x.size(-1);
  const int64_t rows = d == 0 ? rstd.numel() : x.numel() / d;
  AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, x.scalar_type(), "rms_norm_forward_cpu", [&] {
    forward<scalar_t>(x.data_ptr<scalar_t>(), weight.data_ptr<scalar_t>(), y.data_ptr<scalar_t>(),
                      rstd.data_ptr<acc_t<scalar_t>>(), rows, d, eps);
  });
}

void rms_norm_backward_kernel(const at::Tensor& grad_y, const at::Tensor& x,
                              const at::Tensor& weight, const at::Tensor& rstd, at::Tensor& grad_x,
                              at::Tensor& grad_weight) {
  const int64_t d = x.size(-1);
  const int64_t rows = d == 0 ? rstd.numel() : x.numel() / d;
  AT_DISPATCH_FLOATING_TYPES_AND(at::kBFloat16, x.scalar_type(), "rms_norm_backward_cpu", [&] {
    backward<scalar_t>(grad_y.data_ptr<scalar_t>(), x.data_ptr<scalar_t>(),
                       weight.data_ptr<scalar_t>(), rstd.data_ptr<acc_t<scalar_t>>(),
                       grad_x.data_ptr<scalar_t>(), grad_weight.data_ptr<scalar_t>(), rows, d);
  });
}

}  // namespace CPU_CAPABILITY
}  // namespace devcheck::custom_op
