// Reading real torch.save / TorchScript / legacy files: formats, tensors,
// storages, every size check and every finding.
#include "format/reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "checkpoint/fixtures.h"
#include "devcheck/format/error.h"

using ::testing::HasSubstr;

namespace devcheck::detail {
namespace {

using devcheck::testing::fixture;

// `key` is a C string: GCC 14 takes a returned reference beside a temporary
// std::string argument for a dangling one.
const TensorEntry& entry(const ParsedCheckpoint& cp, const char* key) {
  for (const auto& t : cp.entries) {
    if (t.key == key) return t;
  }
  throw std::runtime_error(std::string("no tensor ") + key);
}

const Finding* find(const ParsedCheckpoint& cp, const std::string& code) {
  for (const auto& f : cp.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

TEST(Reader, CpuStateDictListsEveryTensorWithItsStorage) {
  const auto cp = parse_checkpoint(fixture("cpu_state_dict.pt"));
  EXPECT_EQ(cp->format, Format::kZip);
  EXPECT_EQ(cp->facts.kind, "zip");
  EXPECT_EQ(cp->facts.version, "3");
  EXPECT_EQ(cp->facts.pickle_protocol, 2);
  ASSERT_EQ(cp->entries.size(), 9u);  // 2 Linear x2, BatchNorm x5
  const auto& w = entry(*cp, "0.weight");
  EXPECT_EQ(w.dtype, "float32");
  EXPECT_EQ(w.shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(w.device, "cpu");
  EXPECT_EQ(w.nbytes, 48u);
  EXPECT_FALSE(w.view);
  EXPECT_EQ(entry(*cp, "1.num_batches_tracked").dtype, "int64");
  EXPECT_EQ(entry(*cp, "1.num_batches_tracked").shape.size(), 0u);
  EXPECT_TRUE(cp->findings.empty()) << cp->findings[0].message;
}

TEST(Reader, CudaTaggedCheckpointGetsDeviceUnavailableWithTheFixCommand) {
  const auto cp = parse_checkpoint(fixture("cuda1.pt"));
  EXPECT_EQ(entry(*cp, "model.0.weight").device, "cuda:1");
  const Finding* f = find(*cp, "device-unavailable");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_THAT(f->message, HasSubstr("cuda:1"));
  EXPECT_THAT(f->message, HasSubstr("devcheck remap " + fixture("cuda1.pt")));
  EXPECT_THAT(f->message, HasSubstr("--to cpu"));
  EXPECT_FALSE(cp->has_errors());
}

TEST(Reader, MixedDevicesAreReported) {
  const auto cp = parse_checkpoint(fixture("mixed.pt"));
  EXPECT_EQ(entry(*cp, "a").device, "cuda:0");
  EXPECT_EQ(entry(*cp, "b").device, "cpu");
  const Finding* f = find(*cp, "mixed-devices");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("cuda:0"));
  EXPECT_THAT(f->message, HasSubstr("cpu"));
}

TEST(Reader, DataParallelPrefixIsReportedWithTheFix) {
  const auto cp = parse_checkpoint(fixture("dataparallel.pt"));
  EXPECT_EQ(entry(*cp, "module.0.weight").shape, (std::vector<std::int64_t>{3, 4}));
  const Finding* f = find(*cp, "module-prefix");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("--strip-prefix module."));
}

TEST(Reader, OptimizerStateKeysAreFlattenedWithListIndices) {
  const auto cp = parse_checkpoint(fixture("optimizer.pt"));
  EXPECT_EQ(entry(*cp, "optimizer.state.0.exp_avg").shape, (std::vector<std::int64_t>{3, 4}));
  EXPECT_EQ(entry(*cp, "optimizer.state.0.exp_avg_sq").dtype, "float32");
  EXPECT_EQ(entry(*cp, "model.2.bias").shape, (std::vector<std::int64_t>{2}));
  EXPECT_TRUE(cp->findings.empty());
}

TEST(Reader, ViewsAndTiedWeightsShareTheirStorage) {
  const auto cp = parse_checkpoint(fixture("views.pt"));
  const auto& base = entry(*cp, "base");
  const auto& slice = entry(*cp, "slice");
  const auto& t = entry(*cp, "t");
  EXPECT_EQ(base.storage, slice.storage);
  EXPECT_TRUE(base.shares_storage);
  EXPECT_FALSE(base.view);
  EXPECT_TRUE(slice.view);
  EXPECT_EQ(slice.storage_offset, 2);
  EXPECT_TRUE(t.view);
  EXPECT_EQ(t.stride, (std::vector<std::int64_t>{1, 4}));
  EXPECT_EQ(entry(*cp, "strided").stride, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(entry(*cp, "tied.emb.weight").storage, entry(*cp, "tied.out.weight").storage);
  EXPECT_TRUE(entry(*cp, "param").parameter);
  EXPECT_TRUE(entry(*cp, "param").requires_grad);
}

TEST(Reader, EveryDtypeHasPyTorchsNameAndSize) {
  const auto cp = parse_checkpoint(fixture("dtypes.pt"));
  for (const char* name : {"float16", "bfloat16", "float32", "float64", "complex64", "complex128",
                           "bool", "uint8", "int8", "int16", "int32", "int64"}) {
    const auto& t = entry(*cp, name);
    EXPECT_EQ(t.dtype, name);
    EXPECT_EQ(t.nbytes, 6u * static_cast<std::uint64_t>(t.element_size)) << name;
  }
  EXPECT_EQ(entry(*cp, "scalar").shape.size(), 0u);
  EXPECT_EQ(entry(*cp, "scalar").nbytes, 4u);
  EXPECT_EQ(entry(*cp, "empty").shape, (std::vector<std::int64_t>{0, 4}));
  EXPECT_EQ(entry(*cp, "empty").nbytes, 0u);
}

TEST(Reader, ScriptedTorchScriptFindsTheDeviceLiteralWithFileAndLine) {
  const auto cp = parse_checkpoint(fixture("scripted.pt"));
  EXPECT_EQ(cp->format, Format::kTorchScript);
  EXPECT_EQ(cp->facts.kind, "torchscript");
  EXPECT_EQ(entry(*cp, "fc.weight").shape, (std::vector<std::int64_t>{2, 2}));
  ASSERT_FALSE(cp->code_literals.empty());
  const auto it = std::find_if(cp->code_literals.begin(), cp->code_literals.end(),
                               [](const auto& l) { return l.literal == "cuda:0"; });
  ASSERT_NE(it, cp->code_literals.end());
  EXPECT_EQ(it->file, "code/__torch__.py");
  EXPECT_GT(it->line, 1);
  const Finding* f = find(*cp, "code-device-literal");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("code/__torch__.py:"));
  EXPECT_THAT(f->message, HasSubstr("--rewrite-code"));
  EXPECT_FALSE(cp->has_errors());
}

TEST(Reader, TracedTorchScriptReadsDataAndConstants) {
  const auto cp = parse_checkpoint(fixture("traced.pt"));
  EXPECT_EQ(cp->format, Format::kTorchScript);
  EXPECT_EQ(entry(*cp, "c").shape, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(entry(*cp, "constants.0").shape, (std::vector<std::int64_t>{2}));
  EXPECT_FALSE(cp->has_errors());
}

TEST(Reader, LegacyFormatIsReadWithItsStorages) {
  const auto cp = parse_checkpoint(fixture("legacy.pt"));
  EXPECT_EQ(cp->format, Format::kLegacy);
  EXPECT_EQ(cp->facts.version, "1001");
  EXPECT_EQ(entry(*cp, "w").shape, (std::vector<std::int64_t>{6}));
  EXPECT_EQ(entry(*cp, "v").storage_offset, 2);
  EXPECT_EQ(entry(*cp, "v").storage, entry(*cp, "w").storage);
  ASSERT_NE(find(*cp, "legacy-format"), nullptr);
  EXPECT_FALSE(cp->has_errors());
  const auto cuda = parse_checkpoint(fixture("legacy_cuda1.pt"));
  EXPECT_EQ(entry(*cuda, "0.weight").device, "cuda:1");
}

TEST(Reader, UnsafeGlobalsAreErrorsAndNeverRun) {
  for (const char* name : {"evil_system.pt", "evil_eval.pt", "evil_legacy.pt"}) {
    const auto cp = parse_checkpoint(fixture(name));
    const Finding* f = find(*cp, "unsafe-global");
    ASSERT_NE(f, nullptr) << name;
    EXPECT_EQ(f->severity, Severity::kError);
    EXPECT_THAT(f->message,
                ::testing::AnyOf(HasSubstr("posix.system"), HasSubstr("__builtin__.eval")));
    EXPECT_TRUE(cp->has_errors());
  }
  EXPECT_FALSE(std::filesystem::exists(devcheck::testing::pwned_marker()));
}

TEST(Reader, ShortStorageRecordIsASizeMismatch) {
  const auto cp = parse_checkpoint(fixture("short_record.pt"));
  const Finding* f = find(*cp, "size-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_THAT(f->message, HasSubstr("32 bytes"));
  EXPECT_THAT(f->message, HasSubstr("holds 8 bytes"));
}

TEST(Reader, ViewPastItsStorageIsAnError) {
  const auto cp = parse_checkpoint(fixture("view_oob.pt"));
  const Finding* f = find(*cp, "view-out-of-bounds");
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message, HasSubstr("'w'"));
  EXPECT_THAT(f->message, HasSubstr("[64]"));
}

TEST(Reader, UnreadableFilesThrowOneLineNamingTheFile) {
  for (const char* name : {"truncated.pt", "empty.pt", "not_a_checkpoint.pt"}) {
    try {
      parse_checkpoint(fixture(name));
      ADD_FAILURE() << name;
    } catch (const format::FormatError& e) {
      EXPECT_THAT(e.message(), HasSubstr(fixture(name)));
      EXPECT_EQ(e.message().find('\n'), std::string::npos) << e.message();
    }
  }
  EXPECT_THROW(parse_checkpoint(fixture("no_such_file.pt")), format::IoError);
  EXPECT_THROW(parse_checkpoint(fixture("escape.pt")), format::UnsafeContentError);
}

}  // namespace
}  // namespace devcheck::detail
