#include "devcheck/move.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "devcheck/error.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

const c10::Device kCpu(c10::kCPU);
const c10::Device kMeta(c10::kMeta);

TEST(ToDevice, MovesATensorAndKeepsOneAlreadyThere) {
  torch::Tensor x = torch::ones({2, 3});
  torch::Tensor moved = to_device(x, kMeta);
  EXPECT_EQ(moved.device(), kMeta);
  EXPECT_EQ(moved.sizes(), x.sizes());
  torch::Tensor same = to_device(x, kCpu);
  EXPECT_TRUE(same.is_same(x));  // no copy
  EXPECT_FALSE(to_device(torch::Tensor(), kMeta).defined());
}

TEST(ToDevice, MovesNestedStdContainers) {
  std::map<std::string, std::vector<std::optional<torch::Tensor>>> batch;
  batch["images"] = {torch::ones({2}), std::nullopt};
  batch["labels"] = {torch::zeros({2})};
  auto moved = to_device(batch, kMeta);
  EXPECT_EQ(moved["images"][0]->device(), kMeta);
  EXPECT_FALSE(moved["images"][1].has_value());
  EXPECT_EQ(moved["labels"][0]->device(), kMeta);
  EXPECT_EQ(batch["images"][0]->device(), kCpu);  // the input is untouched
}

TEST(ToDevice, MovesPairsTuplesAndUnorderedMaps) {
  auto pair = to_device(std::make_pair(torch::ones({1}), 7), kMeta);
  EXPECT_EQ(pair.first.device(), kMeta);
  EXPECT_EQ(pair.second, 7);
  auto tuple = to_device(std::make_tuple(std::string("x"), torch::ones({1}), 2.5), kMeta);
  EXPECT_EQ(std::get<0>(tuple), "x");
  EXPECT_EQ(std::get<1>(tuple).device(), kMeta);
  EXPECT_EQ(std::get<2>(tuple), 2.5);
  std::unordered_map<int, torch::Tensor> um{{1, torch::ones({1})}};
  EXPECT_EQ(to_device(um, kMeta).at(1).device(), kMeta);
}

TEST(ToDevice, MovesTorchDataExamples) {
  torch::data::Example<> example(torch::ones({1, 28, 28}), torch::tensor(3));
  auto moved = to_device(example, kMeta);
  EXPECT_EQ(moved.data.device(), kMeta);
  EXPECT_EQ(moved.target.device(), kMeta);
  torch::data::TensorExample unlabeled(torch::ones({2}));
  EXPECT_EQ(to_device(unlabeled, kMeta).data.device(), kMeta);
  std::vector<torch::data::Example<>> batch{example, example};
  EXPECT_EQ(to_device(batch, kMeta)[1].target.device(), kMeta);
}

TEST(ToDevice, MovesNestedIValues) {
  c10::impl::GenericDict inner(c10::StringType::get(), c10::AnyType::get());
  inner.insert("w", torch::ones({2}));
  inner.insert("step", 3);
  c10::impl::GenericList list(c10::AnyType::get());
  list.push_back(torch::ones({1}));
  list.push_back(c10::IValue(inner));
  c10::IValue value = c10::ivalue::Tuple::create({c10::IValue(list), torch::zeros({1}), "name"});
  c10::IValue moved = to_device(value, kMeta);
  const auto& elements = moved.toTupleRef().elements();
  ASSERT_EQ(elements.size(), 3u);
  EXPECT_EQ(elements[1].toTensor().device(), kMeta);
  EXPECT_EQ(elements[2].toStringRef(), "name");
  auto moved_list = elements[0].toList();
  EXPECT_EQ(moved_list.get(0).toTensor().device(), kMeta);
  auto moved_dict = moved_list.get(1).toGenericDict();
  EXPECT_EQ(moved_dict.at("w").toTensor().device(), kMeta);
  EXPECT_EQ(moved_dict.at("step").toInt(), 3);
  c10::IValue tensor_list(c10::List<torch::Tensor>({torch::ones({1}), torch::ones({2})}));
  EXPECT_EQ(to_device(tensor_list, kMeta).toTensorVector()[1].device(), kMeta);
}

TEST(ToDevice, MovesTypedC10Lists) {
  c10::List<torch::Tensor> list({torch::ones({1})});
  EXPECT_EQ(to_device(list, kMeta).get(0).device(), kMeta);
}

TEST(ToDevice, ReturnsNonTensorsUnchanged) {
  EXPECT_EQ(to_device(42, kMeta), 42);
  EXPECT_EQ(to_device(std::string("abc"), kMeta), "abc");
  EXPECT_EQ(to_device(c10::IValue(1.5), kMeta).toDouble(), 1.5);
}

TEST(ToLike, MovesToTheReferenceDeviceKeepingDtype) {
  torch::Tensor ref = torch::empty({1}, torch::TensorOptions().device(kMeta));
  torch::Tensor x = torch::ones({2}, torch::kInt32);
  torch::Tensor y = to_like(x, ref);
  EXPECT_EQ(y.device(), kMeta);
  EXPECT_EQ(y.scalar_type(), torch::kInt32);
  auto v = to_like(std::vector<torch::Tensor>{x, x}, ref);
  EXPECT_EQ(v[0].device(), kMeta);
}

struct TwoPlaces : torch::nn::Module {
  TwoPlaces() {
    fc = register_module("fc", torch::nn::Linear(4, 2));
    // LibTorch 1.13's Module::to(meta) refuses, so the stray lives on meta from birth.
    stray =
        register_parameter("stray", torch::empty({3}, torch::TensorOptions().device(c10::kMeta)));
    extra = register_buffer("extra", torch::empty({1}, torch::TensorOptions().device(c10::kMeta)));
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor stray, extra;
};

TEST(ModuleDevice, ReturnsTheOneDeviceOfAModule) {
  torch::nn::Linear linear(4, 2);
  EXPECT_EQ(module_device(linear), kCpu);
  EXPECT_EQ(module_device(*linear), kCpu);
}

TEST(ModuleDevice, ListsEachDeviceWithQualifiedNamesWhenMixed) {
  TwoPlaces model;
  try {
    module_device(model);
    FAIL();
  } catch (const DeviceMismatchError& e) {
    EXPECT_THAT(e.message(), HasSubstr("2 devices"));
    EXPECT_THAT(e.message(), HasSubstr("cpu (2 tensors): fc.weight, fc.bias"));
    EXPECT_THAT(e.message(), HasSubstr("meta (2 tensors): stray, extra"));
    EXPECT_THAT(e.message(), HasSubstr("TwoPlaces"));
  }
}

TEST(ModuleDevice, ModuleWithoutTensorsHasNoDevice) {
  torch::nn::ReLU relu;
  try {
    module_device(relu);
    FAIL();
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("has no parameters or buffers"));
    EXPECT_THAT(e.message(), HasSubstr("ReLU"));
  }
}

TEST(ToDevice, MovesToCudaAndBack_CUDA) {
  DEVCHECK_REQUIRE_CUDA();
  std::vector<torch::Tensor> xs{torch::ones({4}), torch::arange(3)};
  auto on_gpu = to_device(xs, c10::Device(c10::kCUDA, 0), /*non_blocking=*/true);
  EXPECT_TRUE(on_gpu[0].is_cuda());
  auto back = to_device(on_gpu, kCpu);
  EXPECT_TRUE(torch::equal(back[1], xs[1]));
}

}  // namespace
}  // namespace devcheck
