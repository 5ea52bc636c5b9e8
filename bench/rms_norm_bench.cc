// devcheck::rms_norm (examples/custom_op) against the same computation
// composed of ATen ops, x * rsqrt(mean(x^2, -1) + eps) * w, on a 4096 x 1024
// float32 input: forward (no autograd) and forward + backward, and the
// forward composed into preallocated temporaries. Target: the fused kernel
// >= 2x faster in all three. With LibTorch 2.4 on, also against at::rms_norm
// (what torch.nn.functional.rms_norm runs): target >= 1x. Threads: LibTorch's default intra-op
// count (printed); the fused kernel and the composed ops get the same.
#include <ATen/Parallel.h>
#include <malloc.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "detail/compat.h"
#include "ratio.h"
#include "rms_norm.h"

#if DEVCHECK_HAS_ATEN_RMS_NORM
#include <ATen/ops/rms_norm.h>
#endif

namespace {

constexpr int64_t kRows = 4096;
constexpr int64_t kCols = 1024;
constexpr double kEps = 1e-6;

torch::Tensor composed(const torch::Tensor& x, const torch::Tensor& w) {
  return x * torch::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + kEps) * w;
}

#if DEVCHECK_HAS_ATEN_RMS_NORM
// What torch.nn.functional.rms_norm calls (LibTorch 2.4 on).
torch::Tensor aten_rms_norm(const torch::Tensor& x, const torch::Tensor& w) {
  return at::rms_norm(x, {kCols}, w, kEps);
}
#endif

torch::Tensor fused(const torch::Tensor& x, const torch::Tensor& w) {
  return devcheck::rms_norm(x, w, kEps);
}

template <torch::Tensor (*F)(const torch::Tensor&, const torch::Tensor&)>
void forward(benchmark::State& state) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::randn({kRows, kCols});
  const torch::Tensor w = torch::randn({kCols});
  const torch::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(F(x, w).data_ptr());
  state.SetItemsProcessed(state.iterations());
}

// The composed ops with their temporaries allocated once, outside the timed
// loop: their arithmetic and memory passes alone, without page-faulting
// fresh 16 MiB temporaries on every call as the plain composition does.
void forward_composed_preallocated(benchmark::State& state) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::randn({kRows, kCols});
  const torch::Tensor w = torch::randn({kCols});
  torch::Tensor squares = torch::empty_like(x);
  torch::Tensor r = torch::empty({kRows, 1});
  torch::Tensor scaled = torch::empty_like(x);
  torch::Tensor y = torch::empty_like(x);
  const torch::NoGradGuard no_grad;
  for (auto _ : state) {
    at::pow_out(squares, x, 2);
    at::mean_out(r, squares, {-1}, /*keepdim=*/true);
    r.add_(kEps).rsqrt_();
    at::mul_out(scaled, x, r);
    at::mul_out(y, scaled, w);
    benchmark::DoNotOptimize(y.data_ptr());
  }
  state.SetItemsProcessed(state.iterations());
}

template <torch::Tensor (*F)(const torch::Tensor&, const torch::Tensor&)>
void forward_backward(benchmark::State& state) {
  torch::manual_seed(0);
  const torch::Tensor x = torch::randn({kRows, kCols}).requires_grad_(true);
  const torch::Tensor w = torch::randn({kCols}).requires_grad_(true);
  const torch::Tensor g = torch::randn({kRows, kCols});
  for (auto _ : state) {
    const auto grads = torch::autograd::grad({F(x, w)}, {x, w}, {g});
    benchmark::DoNotOptimize(grads[0].data_ptr());
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(forward<composed>)->Name("rms_norm/forward/composed_aten")->UseRealTime();
BENCHMARK(forward_composed_preallocated)
    ->Name("rms_norm/forward/composed_aten_preallocated")
    ->UseRealTime();
BENCHMARK(forward<fused>)->Name("rms_norm/forward/fused")->UseRealTime();
BENCHMARK(forward_backward<composed>)
    ->Name("rms_norm/forward_backward/composed_aten")
    ->UseRealTime();
BENCHMARK(forward_backward<fused>)->Name("rms_norm/forward_backward/fused")->UseRealTime();

#if DEVCHECK_HAS_ATEN_RMS_NORM
BENCHMARK(forward<aten_rms_norm>)->Name("rms_norm/forward/aten_rms_norm")->UseRealTime();
BENCHMARK(forward_backward<aten_rms_norm>)
    ->Name("rms_norm/forward_backward/aten_rms_norm")
    ->UseRealTime();
#endif

}  // namespace

int main(int argc, char** argv) {
  // glibc hands 16 MiB blocks back to the system when they are freed, and
  // whether a run then page-faults its outputs and temporaries in again
  // depends on what ran before it in the process. Keeping freed memory makes
  // every variant's cost its own passes over memory, in any order.
  const bool kept =
      mallopt(M_MMAP_THRESHOLD, 1 << 30) == 1 && mallopt(M_TRIM_THRESHOLD, 1 << 30) == 1;
  const char* capability = std::getenv("ATEN_CPU_CAPABILITY");
  fmt::print(
      "rms_norm_bench: {} x {} float32; {} intra-op threads; {}; ATEN_CPU_CAPABILITY={}; freed "
      "memory {}\n",
      kRows, kCols, at::get_num_threads(), devcheck::bench::load_average_text(),
      capability == nullptr ? "(unset: AVX2 kernel where the CPU has it)" : capability,
      kept ? "kept by glibc (no page faults on reuse)" : "returned to the system (mallopt failed)");
  std::vector<devcheck::bench::RatioCheck> checks = {
      {"rms_norm/forward/fused/real_time", "rms_norm/forward/composed_aten/real_time", 2.0,
       /*speedup=*/true},
      {"rms_norm/forward/fused/real_time", "rms_norm/forward/composed_aten_preallocated/real_time",
       2.0, /*speedup=*/true},
      {"rms_norm/forward_backward/fused/real_time",
       "rms_norm/forward_backward/composed_aten/real_time", 2.0, /*speedup=*/true}};
#if DEVCHECK_HAS_ATEN_RMS_NORM
  // Against what torch.nn.functional.rms_norm runs: target >= 1x.
  checks.push_back({"rms_norm/forward/fused/real_time", "rms_norm/forward/aten_rms_norm/real_time",
                    1.0, /*speedup=*/true});
  checks.push_back({"rms_norm/forward_backward/fused/real_time",
                    "rms_norm/forward_backward/aten_rms_norm/real_time", 1.0, /*speedup=*/true});
#endif
  return devcheck::bench::run_and_print_ratios(argc, argv, checks);
}
