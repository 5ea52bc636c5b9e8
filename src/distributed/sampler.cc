// DistributedSampler: PyTorch's torch.utils.data.DistributedSampler for
// torch::data. LibTorch's own DistributedRandomSampler takes no seed and
// gives each rank a contiguous block; this one draws PyTorch's permutation
// (randperm from a CPU generator seeded with seed + epoch) and strides it, so
// a C++ rank and a Python rank with the same seed see the same samples.
#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <fmt/format.h>
#include <torch/serialize/archive.h>

#include <algorithm>

#include "devcheck/distributed.h"
#include "devcheck/error.h"

namespace devcheck {

DistributedSampler::DistributedSampler(size_t dataset_size, const DistributedSamplerOptions& o)
    : dataset_size_(dataset_size), options_(o) {
  if (o.world_size() < 1 || o.rank() < 0 || o.rank() >= o.world_size()) {
    throw InvalidArgumentError(fmt::format(
        "[devcheck] DistributedSampler: expected 0 <= rank < world_size; received rank {} of {}",
        o.rank(), o.world_size()));
  }
  draw();
}

void DistributedSampler::set_epoch(int64_t epoch) {
  epoch_ = epoch;
  draw();
}

void DistributedSampler::draw() {
  const auto world = static_cast<size_t>(options_.world_size());
  const auto rank = static_cast<size_t>(options_.rank());
  num_samples_ = options_.drop_last() ? dataset_size_ / world : (dataset_size_ + world - 1) / world;
  const size_t total = num_samples_ * world;

  std::vector<size_t> order(dataset_size_);
  if (options_.shuffle() && dataset_size_ > 0) {
    at::Generator generator =
        at::make_generator<at::CPUGeneratorImpl>(options_.seed() + static_cast<uint64_t>(epoch_));
    const at::Tensor perm =
        at::randperm(static_cast<int64_t>(dataset_size_), generator, at::TensorOptions(at::kLong));
    const int64_t* p = perm.data_ptr<int64_t>();
    for (size_t i = 0; i < dataset_size_; ++i) order[i] = static_cast<size_t>(p[i]);
  } else {
    for (size_t i = 0; i < dataset_size_; ++i) order[i] = i;
  }
  // Pad with the permutation's own start (repeated if needed), or cut.
  if (total > dataset_size_ && dataset_size_ > 0) {
    for (size_t i = 0; order.size() < total; ++i) order.push_back(order[i % dataset_size_]);
  }
  order.resize(std::min(order.size(), total));

  indices_.clear();
  indices_.reserve(num_samples_);
  for (size_t i = rank; i < order.size(); i += world) indices_.push_back(order[i]);
  position_ = 0;
}

void DistributedSampler::reset(c10::optional<size_t> new_size) {
  if (new_size) {
    dataset_size_ = *new_size;
    draw();
  }
  position_ = 0;
}

c10::optional<std::vector<size_t>> DistributedSampler::next(size_t batch_size) {
  if (position_ >= indices_.size()) return c10::nullopt;
  const size_t end = std::min(indices_.size(), position_ + batch_size);
  std::vector<size_t> batch(indices_.begin() + static_cast<std::ptrdiff_t>(position_),
                            indices_.begin() + static_cast<std::ptrdiff_t>(end));
  position_ = end;
  return batch;
}

void DistributedSampler::save(torch::serialize::OutputArchive& archive) const {
  archive.write("epoch", at::tensor(epoch_, at::kLong), /*is_buffer=*/true);
  archive.write("position", at::tensor(static_cast<int64_t>(position_), at::kLong),
                /*is_buffer=*/true);
}

void DistributedSampler::load(torch::serialize::InputArchive& archive) {
  at::Tensor epoch = at::empty({}, at::kLong);
  at::Tensor position = at::empty({}, at::kLong);
  archive.read("epoch", epoch, /*is_buffer=*/true);
  archive.read("position", position, /*is_buffer=*/true);
  set_epoch(epoch.item<int64_t>());
  position_ = std::min(static_cast<size_t>(position.item<int64_t>()), indices_.size());
}

}  // namespace devcheck
