// save_tensors / save_state_dict: Python's torch.load (weights_only too) reads them.
#include <ATen/ATen.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include "checkpoint/fixtures.h"
#include "devcheck/checkpoint.h"
#include "devcheck/error.h"
#include "format/allowlist.h"
#include "format/reader.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

using devcheck::testing::expect_weights_only_loads;
using devcheck::testing::run_python;
using devcheck::testing::TempDir;

// Every op of the file's data.pkl is one torch.load(weights_only=True)
// accepts in PyTorch 1.13 and 2.6.
void expect_weights_only_opcodes(const std::string& path) {
  const auto& pickle = Checkpoint::open(path).parsed().pickles.at(0).pickle;
  for (unsigned op = 0; op < 256; ++op) {
    if (pickle.opcodes.test(op)) {
      EXPECT_TRUE(detail::weights_only_opcode(static_cast<unsigned char>(op)))
          << fmt::format("{}: op 0x{:02x}", path, op);
    }
  }
}

TEST(SaveStateDict, PythonLoadsItWithTheSameKeysAndValues) {
  TempDir dir;
  const std::string path = (dir / "model.pt").string();
  auto model = torch::nn::Sequential(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3));
  save_state_dict(*model, path);
  const float w00 = model->named_parameters()["0.weight"][0][0].item<float>();
  const auto r = run_python(
      "import sys, torch\n"
      "sd = torch.load(sys.argv[1], weights_only=True)\n"
      "m = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))\n"
      "m.load_state_dict(sd)\n"
      "print(list(sd.keys()))\n"
      "print('%.6f' % sd['0.weight'][0][0].item())\n",
      {path});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("['0.weight', '0.bias', '1.weight', '1.bias', "
                                  "'1.running_mean', '1.running_var', '1.num_batches_tracked']"));
  EXPECT_THAT(r.output, HasSubstr(fmt::format("{:.6f}", w00)));
  expect_weights_only_opcodes(path);
  expect_weights_only_loads(path);
}

TEST(SaveTensors, KeysOrderDtypesAndSharedStoragesSurviveAPythonRoundTrip) {
  TempDir dir;
  const std::string path = (dir / "t.pt").string();
  const at::Tensor base = at::arange(12, at::kFloat);
  save_tensors(path, {{"z.base", base},
                      {"a.view", base.slice(0, 2, 6)},
                      {"t", base.view({3, 4}).t()},
                      {"half", at::ones({2}, at::kHalf)},
                      {"bf16", at::ones({2}, at::kBFloat16)},
                      {"c64", at::ones({2}, at::kComplexFloat)},
                      {"flag", at::ones({3}, at::kBool)},
                      {"step", at::scalar_tensor(5, at::kLong)},
                      {"empty", at::empty({0, 3})}});
  const auto r = run_python(
      "import sys, torch\n"
      "d = torch.load(sys.argv[1], weights_only=True)\n"
      "assert list(d) == ['z.base', 'a.view', 't', 'half', 'bf16', 'c64', 'flag', 'step', "
      "'empty'], list(d)\n"
      "assert d['a.view'].storage().data_ptr() == d['z.base'].storage().data_ptr()\n"
      "assert d['a.view'].tolist() == [2.0, 3.0, 4.0, 5.0]\n"
      "assert torch.equal(d['t'], torch.arange(12.).view(3, 4).t())\n"
      "assert d['bf16'].dtype == torch.bfloat16 and d['c64'].dtype == torch.complex64\n"
      "assert d['flag'].dtype == torch.bool and d['step'].item() == 5\n"
      "assert d['empty'].shape == (0, 3)\n"
      "print('OK')\n",
      {path});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // And devcheck reads its own output back.
  const auto back = load_tensors(path);
  ASSERT_EQ(back.size(), 9u);
  EXPECT_TRUE(back[0].second.is_alias_of(back[1].second));
  EXPECT_TRUE(torch::equal(back[2].second, base.view({3, 4}).t()));
  expect_weights_only_opcodes(path);
  expect_weights_only_loads(path);
}

TEST(SaveTensors, LargeSizesAndOffsetsUseOnlyOpsWeightsOnlyAccepts) {
  // Offsets and sizes past one byte, two bytes and 32 bits pick BININT2,
  // BININT and LONG1: each is an op both weights-only unpicklers accept.
  TempDir dir;
  const std::string path = (dir / "t.pt").string();
  const at::Tensor big = at::zeros({70000}, at::kByte);
  const at::Tensor wide = at::zeros({1}, at::kByte).expand({int64_t{1} << 33});
  save_tensors(path, {{"big", big}, {"tail", big.slice(0, 69990)}, {"wide", wide}});
  expect_weights_only_opcodes(path);
  expect_weights_only_loads(path);
}

TEST(SaveTensors, DuplicateKeysAndUndefinedTensorsAreInvalidArguments) {
  TempDir dir;
  const std::string path = (dir / "t.pt").string();
  try {
    save_tensors(path, {{"a", at::ones({1})}, {"a", at::ones({1})}});
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'a' appears twice"));
  }
  EXPECT_THROW(save_tensors(path, {{"u", at::Tensor()}}), InvalidArgumentError);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(SaveTensors, OverwritesAtomically) {
  TempDir dir;
  const std::string path = (dir / "t.pt").string();
  save_tensors(path, {{"a", at::ones({1})}});
  save_tensors(path, {{"b", at::zeros({2})}});
  const auto back = load_tensors(path);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].first, "b");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

}  // namespace
}  // namespace devcheck
