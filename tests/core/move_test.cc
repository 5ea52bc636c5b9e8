#include "devcheck/move.h"

#include <c10/core/DeviceGuard.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "support/every_type.h"
#include "support/support.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

const c10::Device kCpu(c10::kCPU);

// The second device is the fake accelerator: moves there really copy the values.
c10::Device fake(int index = 0) { return fake_device(index); }

TEST(ToDevice, MovesATensorAndKeepsOneAlreadyThere) {
  torch::Tensor x = torch::arange(6, torch::kFloat32).reshape({2, 3});
  torch::Tensor moved = to_device(x, fake());
  EXPECT_EQ(moved.device(), fake());
  EXPECT_EQ(moved.sizes(), x.sizes());
  EXPECT_TRUE(torch::equal(moved.cpu(), x));
  EXPECT_TRUE(to_device(moved, fake()).is_same(moved));  // no copy
  torch::Tensor same = to_device(x, kCpu);
  EXPECT_TRUE(same.is_same(x));  // no copy
  EXPECT_FALSE(to_device(torch::Tensor(), fake()).defined());
  // fake:0 -> fake:1, and back to the CPU
  torch::Tensor other = to_device(moved, fake(1));
  EXPECT_EQ(other.device(), fake(1));
  EXPECT_TRUE(torch::equal(to_device(other, kCpu), x));
}

TEST(ToDevice, IndexlessDeviceMeansTheCurrentOneAsInLibTorch) {
  const c10::Device any_fake(fake().type());
  torch::Tensor on0 = torch::ones({2}).to(fake(0));
  EXPECT_TRUE(to_device(on0, any_fake).is_same(on0));  // already on the current device
  const c10::DeviceGuard current(fake(1));
  torch::Tensor moved = to_device(on0, any_fake);
  EXPECT_EQ(moved.device(), fake(1));
  EXPECT_TRUE(torch::equal(moved.cpu(), torch::ones({2})));
}

TEST(ToDevice, MovesNestedStdContainers) {
  std::map<std::string, std::vector<std::optional<torch::Tensor>>> batch;
  batch["images"] = {torch::full({2}, 5.0), std::nullopt};
  batch["labels"] = {torch::zeros({2})};
  auto moved = to_device(batch, fake());
  EXPECT_EQ(moved["images"][0]->device(), fake());
  EXPECT_TRUE(torch::equal(moved["images"][0]->cpu(), torch::full({2}, 5.0)));
  EXPECT_FALSE(moved["images"][1].has_value());
  EXPECT_EQ(moved["labels"][0]->device(), fake());
  EXPECT_EQ(batch["images"][0]->device(), kCpu);  // the input is untouched
}

TEST(ToDevice, MovesPairsTuplesAndUnorderedMaps) {
  auto pair = to_device(std::make_pair(torch::ones({1}), 7), fake());
  EXPECT_EQ(pair.first.device(), fake());
  EXPECT_EQ(pair.second, 7);
  auto tuple = to_device(std::make_tuple(std::string("x"), torch::ones({1}), 2.5), fake(1));
  EXPECT_EQ(std::get<0>(tuple), "x");
  EXPECT_EQ(std::get<1>(tuple).device(), fake(1));
  EXPECT_EQ(std::get<2>(tuple), 2.5);
  std::unordered_map<int, torch::Tensor> um{{1, torch::ones({1})}};
  EXPECT_EQ(to_device(um, fake()).at(1).device(), fake());
}

TEST(ToDevice, MovesTorchDataExamples) {
  torch::data::Example<> example(torch::ones({1, 28, 28}), torch::tensor(3));
  auto moved = to_device(example, fake());
  EXPECT_EQ(moved.data.device(), fake());
  EXPECT_EQ(moved.target.device(), fake());
  EXPECT_EQ(moved.target.item<int64_t>(), 3);
  torch::data::TensorExample unlabeled(torch::ones({2}));
  EXPECT_EQ(to_device(unlabeled, fake()).data.device(), fake());
  std::vector<torch::data::Example<>> batch{example, example};
  EXPECT_EQ(to_device(batch, fake())[1].target.device(), fake());
}

TEST(ToDevice, MovesNestedIValues) {
  c10::impl::GenericDict inner(c10::StringType::get(), c10::AnyType::get());
  inner.insert("w", torch::full({2}, 4.0));
  inner.insert("step", 3);
  c10::impl::GenericList list(c10::AnyType::get());
  list.push_back(torch::ones({1}));
  list.push_back(c10::IValue(inner));
  c10::IValue value = c10::ivalue::Tuple::create({c10::IValue(list), torch::zeros({1}), "name"});
  c10::IValue moved = to_device(value, fake());
  const auto& elements = moved.toTupleRef().elements();
  ASSERT_EQ(elements.size(), 3u);
  EXPECT_EQ(elements[1].toTensor().device(), fake());
  EXPECT_EQ(elements[2].toStringRef(), "name");
  auto moved_list = elements[0].toList();
  EXPECT_EQ(moved_list.get(0).toTensor().device(), fake());
  auto moved_dict = moved_list.get(1).toGenericDict();
  EXPECT_EQ(moved_dict.at("w").toTensor().device(), fake());
  EXPECT_TRUE(torch::equal(moved_dict.at("w").toTensor().cpu(), torch::full({2}, 4.0)));
  EXPECT_EQ(moved_dict.at("step").toInt(), 3);
  c10::IValue tensor_list(c10::List<torch::Tensor>({torch::ones({1}), torch::ones({2})}));
  EXPECT_EQ(to_device(tensor_list, fake()).toTensorVector()[1].device(), fake());
}

TEST(ToDevice, MovesTypedC10Lists) {
  c10::List<torch::Tensor> list({torch::ones({1})});
  EXPECT_EQ(to_device(list, fake()).get(0).device(), fake());
}

TEST(ToDevice, ReturnsNonTensorsUnchanged) {
  EXPECT_EQ(to_device(42, fake()), 42);
  EXPECT_EQ(to_device(std::string("abc"), fake()), "abc");
  EXPECT_EQ(to_device(c10::IValue(1.5), fake()).toDouble(), 1.5);
}

using testing::every_type;
using testing::every_type_values;
using testing::EveryType;
using testing::values;

TEST(MapTensors, WalksEveryContainerTypeInOrder) {
  const std::vector<float> expected = every_type_values();
  EXPECT_EQ(values(every_type()), expected);
  const EveryType doubled = map_tensors(every_type(), [](const torch::Tensor& t) { return t * 2; });
  std::vector<float> twice;
  for (float v : expected) twice.push_back(v * 2);
  EXPECT_EQ(values(doubled), twice);
  EXPECT_EQ(std::get<4>(doubled).second, 5);  // what holds no tensor is kept
}

TEST(MapTensors, SkipsUndefinedTensorsAndEmptyOptionals) {
  std::vector<std::optional<torch::Tensor>> xs{torch::Tensor(), std::nullopt, torch::ones({1})};
  int calls = 0;
  auto out = map_tensors(xs, [&](const torch::Tensor& t) {
    ++calls;
    return t + 1;
  });
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(out[0]->defined());
  EXPECT_FALSE(out[1].has_value());
  EXPECT_EQ(out[2]->item<float>(), 2.0F);
}

TEST(ToDevice, MovesEveryContainerTypeToTheFakeDevice) {
  const EveryType batch = every_type();
  std::vector<c10::Device> devices;
  const EveryType moved = to_device(batch, fake(1));
  EXPECT_EQ(values(moved, &devices), values(batch));
  ASSERT_EQ(devices.size(), 11U);
  for (const auto& d : devices) EXPECT_EQ(d, fake(1));
  devices.clear();
  (void)values(batch, &devices);  // the input is untouched
  for (const auto& d : devices) EXPECT_EQ(d, kCpu);
}

TEST(ToLike, MovesToTheReferenceDeviceKeepingDtype) {
  torch::Tensor ref = torch::empty({1}, torch::TensorOptions().device(fake(1)));
  torch::Tensor x = torch::arange(2, torch::kInt32);
  torch::Tensor y = to_like(x, ref);
  EXPECT_EQ(y.device(), fake(1));
  EXPECT_EQ(y.scalar_type(), torch::kInt32);
  EXPECT_TRUE(torch::equal(y.cpu(), x));
  auto v = to_like(std::vector<torch::Tensor>{x, x}, ref);
  EXPECT_EQ(v[0].device(), fake(1));
  // the op that failed with x runs with y
  EXPECT_THROW((void)(ref.zero_() + x.narrow(0, 0, 1)), c10::Error);
  EXPECT_TRUE(torch::equal((ref + y.narrow(0, 1, 1)).cpu(), torch::ones({1})));
}

struct TwoPlaces : torch::nn::Module {
  TwoPlaces() {
    fc = register_module("fc", torch::nn::Linear(4, 2));
    stray = register_parameter("stray", torch::ones({3}));
    extra = register_buffer("extra", torch::ones({1}));
  }
  torch::nn::Linear fc{nullptr};
  torch::Tensor stray, extra;
};

TEST(ModuleDevice, ReturnsTheOneDeviceOfAModule) {
  torch::nn::Linear linear(4, 2);
  EXPECT_EQ(module_device(linear), kCpu);
  EXPECT_EQ(module_device(*linear), kCpu);
  linear->to(fake(1));
  EXPECT_EQ(module_device(linear), fake(1));
}

TEST(ModuleDevice, ListsEachDeviceWithQualifiedNamesWhenMixed) {
  TwoPlaces model;
  model.fc->to(fake(0));  // the submodule moved alone; the parent's own tensors stay
  try {
    module_device(model);
    FAIL();
  } catch (const DeviceMismatchError& e) {
    EXPECT_THAT(e.message(), HasSubstr("2 devices"));
    EXPECT_THAT(e.message(), HasSubstr(fake(0).str() + " (2 tensors): fc.weight, fc.bias"));
    EXPECT_THAT(e.message(), HasSubstr("cpu (2 tensors): stray, extra"));
    EXPECT_THAT(e.message(), HasSubstr("TwoPlaces"));
  }
  // fake:0 and fake:1 are two devices as well
  model.to(fake(1));
  model.fc->to(fake(0));
  try {
    module_device(model);
    FAIL();
  } catch (const DeviceMismatchError& e) {
    EXPECT_THAT(e.message(), HasSubstr(fake(0).str() + " (2 tensors): fc.weight, fc.bias"));
    EXPECT_THAT(e.message(), HasSubstr(fake(1).str() + " (2 tensors): stray, extra"));
  }
  model.to(fake(1));
  EXPECT_EQ(module_device(model), fake(1));
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
