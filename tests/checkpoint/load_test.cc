// load_tensors and load_state_dict against what real torch.load reads.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "checkpoint/fixtures.h"
#include "checkpoint/load_tuning.h"
#include "checkpoint/mapped_file.h"
#include "devcheck/checkpoint.h"
#include "devcheck/error.h"
#include "devcheck/fake_device.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

using devcheck::testing::fixture;
using devcheck::testing::read_file;
using devcheck::testing::run_python;
using devcheck::testing::TempDir;
using devcheck::testing::torch_check;
using devcheck::testing::write_file;

constexpr std::int64_t kLargeCount = 786437;  // large.pt's "big": 3 MiB + 20 B of float32

std::string hex_of(const at::Tensor& t) {
  at::Tensor flat = t.reshape({-1}).contiguous();
  if (flat.scalar_type() == at::kBool) flat = flat.to(at::kByte);
  const auto* p = static_cast<const unsigned char*>(flat.data_ptr());
  std::string hex;
  for (std::int64_t i = 0; i < flat.numel() * static_cast<std::int64_t>(flat.element_size()); ++i) {
    static const char* digits = "0123456789abcdef";
    hex += digits[p[i] >> 4];
    hex += digits[p[i] & 15];
  }
  return hex;
}

void expect_same_as_torch_at(const std::string& path, const MapLocation& map) {
  const auto r = torch_check({"dump", path});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto expected = nlohmann::json::parse(r.output);
  const auto tensors = load_tensors(path, map);
  const std::string name = std::filesystem::path(path).filename().string();
  ASSERT_EQ(tensors.size(), expected.size()) << name;
  for (const auto& [key, tensor] : tensors) {
    ASSERT_TRUE(expected.contains(key)) << key;
    EXPECT_EQ(tensor.sizes().vec(), expected[key]["shape"].get<std::vector<std::int64_t>>()) << key;
    EXPECT_EQ(hex_of(tensor), expected[key]["hex"].get<std::string>()) << name << " " << key;
    EXPECT_TRUE(tensor.device().is_cpu());
  }
}

void expect_same_as_torch(const std::string& name, const MapLocation& map) {
  expect_same_as_torch_at(fixture(name), map);
}

bool is_mapped(const at::Tensor& t) { return detail::is_file_mapping(t.storage().data_ptr()); }

TEST(LoadTensors, BitwiseEqualToTorchLoadForEveryFixture) {
  const MapLocation cpu = MapLocation::to(c10::Device("cpu"));
  for (const char* name : {"cpu_state_dict.pt", "cuda1.pt", "optimizer.pt", "views.pt", "dtypes.pt",
                           "legacy.pt", "legacy_cuda1.pt", "mixed.pt"}) {
    expect_same_as_torch(name, cpu);
  }
}

// With every stored, aligned record mapped (as the fuzzer runs it), small
// files take the path of runs and slices and still load as torch.load does.
TEST(LoadTensors, WithEveryRecordMappedTheFixturesStillLoadAsTorchDoes) {
  struct Restore {
    std::uint64_t before = detail::map_min_bytes();
    ~Restore() { detail::set_map_min_bytes(before); }
  } restore;
  detail::set_map_min_bytes(1);
  const MapLocation cpu = MapLocation::to(c10::Device("cpu"));
  for (const char* name : {"cpu_state_dict.pt", "cuda1.pt", "optimizer.pt", "views.pt", "dtypes.pt",
                           "legacy.pt", "mixed.pt", "large.pt"}) {
    SCOPED_TRACE(name);
    expect_same_as_torch(name, cpu);
  }
  auto tensors = load_tensors(fixture("cpu_state_dict.pt"), cpu);
  ASSERT_FALSE(tensors.empty());
  const auto* span = detail::MappedSpan::span_of(tensors.front().second.storage().data_ptr());
  EXPECT_NE(span, nullptr);
  for (const auto& [key, t] : tensors) {
    EXPECT_EQ(detail::MappedSpan::span_of(t.storage().data_ptr()), span) << key;
  }
}

TEST(LoadTensors, DtypesMatchTheFile) {
  const auto tensors = load_tensors(fixture("dtypes.pt"));
  for (const auto& [key, t] : tensors) {
    if (key == "bfloat16") {
      EXPECT_EQ(t.scalar_type(), at::kBFloat16);
    } else if (key == "complex128") {
      EXPECT_EQ(t.scalar_type(), at::kComplexDouble);
    } else if (key == "bool") {
      EXPECT_EQ(t.scalar_type(), at::kBool);
    }
    if (key == "scalar") {
      EXPECT_EQ(t.dim(), 0);
      EXPECT_FLOAT_EQ(t.item<float>(), 3.5f);
    }
  }
}

TEST(LoadTensors, ViewsShareOneStorageInMemory) {
  const auto tensors = load_tensors(fixture("views.pt"));
  std::map<std::string, at::Tensor> by_key(tensors.begin(), tensors.end());
  EXPECT_TRUE(by_key["base"].is_alias_of(by_key["slice"]));
  EXPECT_TRUE(by_key["base"].is_alias_of(by_key["t"]));
  EXPECT_TRUE(by_key["tied.emb.weight"].is_alias_of(by_key["tied.out.weight"]));
  by_key["base"].fill_(7);
  EXPECT_EQ(by_key["slice"][0].item<float>(), 7.0f);
  EXPECT_EQ(by_key["slice"].storage_offset(), 2);
  EXPECT_TRUE(by_key["param"].requires_grad());
}

TEST(LoadTensors, LargeStoragesAreReadWholeWritableAndShared) {
  constexpr std::int64_t kCount = kLargeCount;
  for (const char* name : {"large.pt", "large_legacy.pt"}) {
    SCOPED_TRACE(name);
    auto tensors = load_tensors(fixture(name));
    std::map<std::string, at::Tensor> by_key(tensors.begin(), tensors.end());
    tensors.clear();
    at::Tensor big = by_key["big"];
    EXPECT_TRUE(at::equal(big, at::arange(kCount, at::kFloat)));
    EXPECT_TRUE(at::equal(by_key["tail"], at::arange(kCount - 5, kCount, at::kFloat)));
    EXPECT_TRUE(at::equal(by_key["grid"], at::arange(1000, 2000, at::kFloat).view({10, 100})));
    EXPECT_TRUE(big.is_alias_of(by_key["tail"]));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.data_ptr()) % 64, 0U);
    big.fill_(2);  // the memory is the tensor's own and writable
    EXPECT_EQ(by_key["tail"].sum().item<double>(), 10.0);
    by_key.clear();  // last references: the mapping is released
  }
}

TEST(LoadTensors, LargeStoredRecordsAreTheFilesPagesAndOutliveTheFile) {
  TempDir dir;
  const auto path = dir / "large.pt";
  std::filesystem::copy_file(fixture("large.pt"), path);
  const std::string saved = read_file(path);
  auto tensors = load_tensors(path.string());
  std::map<std::string, at::Tensor> by_key(tensors.begin(), tensors.end());
  tensors.clear();
  at::Tensor big = by_key["big"];
  EXPECT_TRUE(is_mapped(big));
  EXPECT_TRUE(big.is_alias_of(by_key["tail"]));
  // Replaced by a rename (as devcheck and most tools write), then removed: the
  // tensors keep the bytes they were loaded with.
  write_file(dir / "other.pt", std::string(saved.size(), '\0'));
  std::filesystem::rename(dir / "other.pt", path);
  std::filesystem::remove(path);
  EXPECT_TRUE(at::equal(big, at::arange(kLargeCount, at::kFloat)));
  EXPECT_TRUE(at::equal(by_key["grid"], at::arange(1000, 2000, at::kFloat).view({10, 100})));
  // Writing into a loaded tensor never writes into its file.
  std::filesystem::copy_file(fixture("large.pt"), path);
  auto again = load_tensors(path.string());
  ASSERT_TRUE(is_mapped(again.front().second));
  for (auto& [key, t] : again) t.fill_(9);
  EXPECT_EQ(read_file(path), saved);
  EXPECT_TRUE(at::equal(big, at::arange(kLargeCount, at::kFloat)));
}

// Large records that follow one another in the file are read as one run and
// cut from one mapping; each tensor still owns its own pages.
TEST(LoadTensors, ConsecutiveLargeRecordsShareOneReadAndEachFreesItsOwnPages) {
  TempDir dir;
  const auto path = dir / "run.pt";
  const auto r = run_python(R"(
import sys, torch
torch.manual_seed(0)
state = {}
for i in range(6):
    state[f"layer{i}.weight"] = torch.rand(300, 1000)  # 1.14 MiB each: mapped
    state[f"layer{i}.bias"] = torch.rand(7)            # small: copied
torch.save(state, sys.argv[1])
)",
                            {path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  expect_same_as_torch_at(path.string(), MapLocation::to(c10::Device("cpu")));
  auto tensors = load_tensors(path.string());
  std::map<std::string, at::Tensor> by_key(tensors.begin(), tensors.end());
  tensors.clear();
  const auto span_of = [](const at::Tensor& t) {
    return detail::MappedSpan::span_of(t.storage().data_ptr());
  };
  for (int i = 0; i < 6; ++i) {
    const std::string key = "layer" + std::to_string(i);
    EXPECT_TRUE(is_mapped(by_key[key + ".weight"])) << key;
    EXPECT_FALSE(is_mapped(by_key[key + ".bias"])) << key;
    EXPECT_EQ(span_of(by_key[key + ".weight"]), span_of(by_key["layer0.weight"])) << key;
  }
  EXPECT_NE(span_of(by_key["layer0.weight"]), nullptr);
  const at::Tensor fourth = by_key["layer3.weight"].clone();
  const auto* third = static_cast<const char*>(by_key["layer2.weight"].data_ptr());
  const std::size_t third_bytes = by_key["layer2.weight"].nbytes();
  by_key.erase("layer2.weight");  // its pages go; its neighbours keep theirs
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in(1);
  const auto inner = (reinterpret_cast<std::uintptr_t>(third) + 2 * page) / page * page;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): an address, not an object
  EXPECT_NE(::mincore(reinterpret_cast<void*>(inner), page, in.data()), 0);
  EXPECT_GT(third_bytes, 4 * page);
  EXPECT_TRUE(at::equal(by_key["layer3.weight"], fourth));
  by_key["layer1.weight"].fill_(3);  // writable, and only its own bytes change
  EXPECT_TRUE(at::equal(by_key["layer3.weight"], fourth));
  EXPECT_EQ(by_key["layer1.weight"].sum().item<double>(), 3.0 * 300 * 1000);
}

// A large record whose local header is corrupt: the load stops with one
// FormatError naming the file and the record, as for any other record.
TEST(LoadTensors, ACorruptLocalHeaderOfAMappedRecordIsAFormatErrorNamingIt) {
  TempDir dir;
  const auto path = dir / "corrupt.pt";
  const auto r = run_python(R"(
import sys, zipfile, torch
torch.save({f"w{i}": torch.rand(300, 1000) for i in range(3)}, sys.argv[1])
with zipfile.ZipFile(sys.argv[1]) as z:
    info = next(i for i in z.infolist() if i.filename.endswith("/data/1"))
with open(sys.argv[1], "r+b") as f:
    f.seek(info.header_offset)
    f.write(b"XX")  # the local header's signature
print(info.filename)
)",
                            {path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string before = read_file(path);
  try {
    load_tensors(path.string());
    ADD_FAILURE() << "a corrupt local header was loaded";
  } catch (const FormatError& e) {
    EXPECT_THAT(e.message(), HasSubstr(path.string()));
    EXPECT_THAT(e.message(), HasSubstr("/data/1"));
    EXPECT_THAT(e.message(), HasSubstr("corrupt local header"));
  }
  EXPECT_EQ(read_file(path), before);
}

TEST(LoadTensors, CompressedUnalignedLegacyAndSmallRecordsAreCopiesEqualToTorchLoad) {
  TempDir dir;
  // large.pt rewritten by Python's zipfile: every record deflated, and every
  // record stored with its data 4 bytes past a 64-byte boundary.
  const auto r = run_python(
      R"(
import struct, sys, zipfile
src, deflated, unaligned = sys.argv[1:4]
with zipfile.ZipFile(src) as z:
    records = [(i.filename, z.read(i.filename)) for i in z.infolist()]
with zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as out:
    for name, data in records:
        out.writestr(name, data)
with zipfile.ZipFile(unaligned, "w", zipfile.ZIP_STORED) as out:
    for name, data in records:
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        start = out.fp.tell() + 30 + len(name.encode()) + 4
        info.extra = struct.pack("<HH", 0x4242, (4 - start) % 64) + b"\0" * ((4 - start) % 64)
        out.writestr(info, data)
        assert (out.infolist()[-1].header_offset + 30 + len(name.encode()) + len(info.extra)) % 64 == 4
)",
      {fixture("large.pt"), (dir / "deflated.pt").string(), (dir / "unaligned.pt").string()});
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const MapLocation cpu = MapLocation::to(c10::Device("cpu"));
  for (const std::string& path : {(dir / "deflated.pt").string(), (dir / "unaligned.pt").string(),
                                  fixture("large_legacy.pt"), fixture("cpu_state_dict.pt")}) {
    SCOPED_TRACE(path);
    expect_same_as_torch_at(path, cpu);
    for (const auto& [key, t] : load_tensors(path, cpu)) {
      EXPECT_FALSE(is_mapped(t)) << key;
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.storage().data_ptr().get()) % 64, 0U) << key;
    }
  }
  expect_same_as_torch("large.pt", cpu);
}

TEST(LoadTensors, LargeRecordsMappedToAnotherDeviceLandThereAsCopies) {
  const c10::Device fake1 = fake_device(1);
  auto tensors = load_tensors(fixture("large.pt"), MapLocation::to(fake1));
  std::map<std::string, at::Tensor> by_key(tensors.begin(), tensors.end());
  EXPECT_EQ(by_key["big"].device(), fake1);
  EXPECT_FALSE(is_mapped(by_key["big"]));
  EXPECT_TRUE(by_key["big"].is_alias_of(by_key["tail"]));
  EXPECT_TRUE(at::equal(by_key["big"].cpu(), at::arange(kLargeCount, at::kFloat)));
}

TEST(LoadTensors, CudaTaggedWithoutMapLocationNamesKeyAndBothDevices) {
  if (cuda_device_count() > 1) GTEST_SKIP() << "this machine has cuda:1";
  try {
    load_tensors(fixture("cuda1_state_dict.pt"));
    FAIL() << "expected DeviceUnavailableError";
  } catch (const DeviceUnavailableError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'0.weight'"));
    EXPECT_THAT(e.message(), HasSubstr("saved on cuda:1"));
    EXPECT_THAT(e.message(), HasSubstr("created on cuda:1"));
    EXPECT_THAT(e.message(), HasSubstr("MapLocation::to"));
  }
}

TEST(LoadTensors, MapToMetaCreatesTensorsThereWithoutData) {
  const auto tensors =
      load_tensors(fixture("cuda1_state_dict.pt"), MapLocation::to(c10::Device("meta")));
  ASSERT_FALSE(tensors.empty());
  for (const auto& [key, t] : tensors) EXPECT_TRUE(t.is_meta()) << key;
}

TEST(LoadTensors, MapToAFakeDevicePutsEveryTensorThereWithTheFilesBytes) {
  const c10::Device fake1 = fake_device(1);
  for (const MapLocation& map : {MapLocation::to(fake1), MapLocation().map("cuda:1", "fake:1"),
                                 MapLocation().map("cuda:1", "privateuseone:1")}) {
    SCOPED_TRACE(map.str());
    const auto on_fake = load_tensors(fixture("cuda1_state_dict.pt"), map);
    const auto on_cpu =
        load_tensors(fixture("cuda1_state_dict.pt"), MapLocation::to(c10::Device(c10::kCPU)));
    ASSERT_EQ(on_fake.size(), on_cpu.size());
    for (size_t i = 0; i < on_fake.size(); ++i) {
      EXPECT_EQ(on_fake[i].second.device(), fake1) << on_fake[i].first;
      EXPECT_EQ(hex_of(on_fake[i].second.cpu()), hex_of(on_cpu[i].second)) << on_fake[i].first;
    }
  }
  // views keep sharing one storage on the fake device
  const auto views = load_tensors(fixture("views.pt"), MapLocation::to(fake1));
  std::map<std::string, at::Tensor> by_key(views.begin(), views.end());
  EXPECT_TRUE(by_key["base"].is_alias_of(by_key["slice"]));
  by_key["base"].fill_(7);
  EXPECT_EQ(by_key["slice"][0].item<float>(), 7.0F);
  EXPECT_EQ(by_key["slice"].device(), fake1);
}

TEST(LoadTensors, UnsafeFilesAreRefusedAndNeverRun) {
  for (const char* name : {"evil_system.pt", "evil_eval.pt", "short_record.pt", "view_oob.pt"}) {
    EXPECT_THROW(load_tensors(fixture(name)), UnsafeContentError) << name;
  }
  EXPECT_FALSE(std::filesystem::exists(devcheck::testing::pwned_marker()));
}

torch::nn::Sequential mlp() {
  return torch::nn::Sequential(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3),
                               torch::nn::Linear(3, 2));
}

TEST(LoadStateDict, PythonStateDictFillsTheLibTorchModule) {
  auto model = mlp();
  const LoadReport report = load_state_dict(*model, fixture("cpu_state_dict.pt"));
  EXPECT_TRUE(report.ok()) << report.to_text();
  EXPECT_EQ(report.loaded, 9u);
  const auto tensors = load_tensors(fixture("cpu_state_dict.pt"));
  for (const auto& [key, t] : tensors) {
    const auto* p = model->named_parameters().find(key);
    const auto* b = model->named_buffers().find(key);
    ASSERT_TRUE(p != nullptr || b != nullptr) << key;
    EXPECT_TRUE(torch::equal(p ? *p : *b, t)) << key;
  }
}

TEST(LoadStateDict, DataParallelPrefixIsStrippedAutomatically) {
  auto model = mlp();
  const LoadReport report = load_state_dict(*model, fixture("dataparallel.pt"));
  EXPECT_TRUE(report.ok()) << report.to_text();
  EXPECT_EQ(report.stripped_prefix, "module.");
}

TEST(LoadStateDict, CudaTaggedFileLoadsIntoACpuModule) {
  auto model = mlp();
  EXPECT_TRUE(load_state_dict(*model, fixture("cuda1_state_dict.pt")).ok());
}

TEST(LoadStateDict, StrictMismatchThrowsWithBothShapesAndChangesNothing) {
  auto model = torch::nn::Sequential(torch::nn::Linear(5, 3), torch::nn::BatchNorm1d(3));
  const at::Tensor before = model->named_parameters()["0.weight"].clone();
  try {
    load_state_dict(*model, fixture("cpu_state_dict.pt"));
    FAIL() << "expected InvalidArgumentError";
  } catch (const InvalidArgumentError& e) {
    EXPECT_THAT(e.message(), HasSubstr("'0.weight': module [3, 5], file [3, 4]"));
    EXPECT_THAT(e.message(), HasSubstr("unexpected: 2.weight, 2.bias"));
    EXPECT_THAT(e.message(), HasSubstr(fixture("cpu_state_dict.pt")));
  }
  EXPECT_TRUE(torch::equal(before, model->named_parameters()["0.weight"]));
}

TEST(LoadStateDict, NonStrictLoadsWhatMatchesAndReports) {
  auto model = torch::nn::Sequential(torch::nn::Linear(5, 3), torch::nn::BatchNorm1d(3));
  const LoadReport report =
      load_state_dict(*model, fixture("cpu_state_dict.pt"), LoadOptions().strict(false));
  EXPECT_FALSE(report.ok());
  ASSERT_EQ(report.mismatched.size(), 1u);
  EXPECT_EQ(report.mismatched[0].key, "0.weight");
  EXPECT_EQ(report.unexpected.size(), 2u);
  EXPECT_EQ(report.loaded, 6u);  // 0.bias and five BatchNorm tensors
  EXPECT_THAT(report.to_json(), HasSubstr("\"mismatched\""));
}

TEST(LoadStateDict, LargeParametersAreFilledFromTheFilesPages) {
  struct Holder : torch::nn::Module {
    Holder() { big = register_parameter("big", at::zeros({kLargeCount})); }
    at::Tensor big;
  };
  Holder holder;
  const void* before = holder.big.data_ptr();
  const LoadReport report =
      load_state_dict(holder, fixture("large.pt"), LoadOptions().strict(false));
  EXPECT_EQ(report.loaded, 1u);
  EXPECT_EQ(report.unexpected, (std::vector<std::string>{"tail", "grid"}));
  EXPECT_EQ(holder.big.data_ptr(), before);  // copied into the parameter's own memory
  EXPECT_FALSE(is_mapped(holder.big));
  EXPECT_TRUE(at::equal(holder.big, at::arange(kLargeCount, at::kFloat)));
}

}  // namespace
}  // namespace devcheck
