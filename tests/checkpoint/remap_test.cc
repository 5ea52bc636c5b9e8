// remap(): only storage locations change; real torch.load reads every output
// without map_location, bitwise equal; inputs are never touched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "checkpoint/fixtures.h"
#include "devcheck/checkpoint.h"
#include "devcheck/error.h"
#include "format/allowlist.h"
#include "format/reader.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

using devcheck::testing::expect_weights_only_loads;
using devcheck::testing::fixture;
using devcheck::testing::read_file;
using devcheck::testing::TempDir;
using devcheck::testing::torch_check;

RemapOptions to_cpu() { return RemapOptions().map_location(MapLocation::to(c10::Device("cpu"))); }

void expect_torch_equal(const std::string& original, const std::string& remapped,
                        const std::string& prefix = "") {
  std::vector<std::string> args{"compare", original, remapped};
  if (!prefix.empty()) args.push_back(prefix);
  const auto r = torch_check(args);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("OK"));
}

// The check itself (torch_check.py through tests/support/fork_server.py): a
// file real torch cannot load without map_location fails it with torch's
// own message, and a good one passes after it in the same server.
TEST(TorchCheck, AFileTorchCannotLoadFailsWithTorchsMessageAndTheNextCheckStillRuns) {
  const auto bad = torch_check({"compare", fixture("cpu_state_dict.pt"), fixture("cuda1.pt")});
  EXPECT_NE(bad.exit_code, 0) << bad.output;
  EXPECT_THAT(bad.output, HasSubstr("Attempting to deserialize object on a CUDA device"));
  EXPECT_THAT(bad.output, HasSubstr("torch_check.py"));  // the traceback names the script
  const auto good =
      torch_check({"compare", fixture("cpu_state_dict.pt"), fixture("cpu_state_dict.pt")});
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_THAT(good.output, HasSubstr("OK"));
}

TEST(Remap, CudaTaggedFileLoadsInTorchWithoutMapLocation) {
  TempDir dir;
  for (const char* name : {"cuda1.pt", "cuda1_state_dict.pt", "mixed.pt", "optimizer.pt",
                           "views.pt", "dtypes.pt", "cpu_config.pt"}) {
    const std::string out = (dir / (std::string("out_") + name)).string();
    const std::string before = read_file(fixture(name));
    const RemapReport report = remap(fixture(name), out, to_cpu());
    EXPECT_EQ(read_file(fixture(name)), before) << "input modified: " << name;
    expect_torch_equal(fixture(name), out);
    const Checkpoint cp = Checkpoint::open(out);
    for (const auto& e : cp.entries()) EXPECT_EQ(e.device, "cpu") << e.key;
    EXPECT_GT(report.bytes_written, 0u);
  }
}

RemapOptions to(const char* device) {
  return RemapOptions().map_location(MapLocation::to(c10::Device(device)));
}

// What PyTorch 2.6's torch.load reads by default: every remapped file loads
// with weights_only=True (the op-by-op check holds 1.13 to 2.6's rules).
TEST(Remap, EveryOutputLoadsWithTorchLoadWeightsOnlyToCpu) {
  TempDir dir;
  for (const char* name : {"cuda1.pt", "cuda1_state_dict.pt", "cuda1_config.pt", "mixed.pt",
                           "optimizer.pt", "views.pt", "dtypes.pt", "cpu_config.pt",
                           "large_cuda1.pt", "legacy.pt", "legacy_cuda1.pt"}) {
    const std::string out = (dir / (std::string("cpu_") + name)).string();
    remap(fixture(name), out, to_cpu());
    expect_weights_only_loads(out, fixture(name));
  }
}

TEST(Remap, EveryOutputLoadsWithTorchLoadWeightsOnlyCpuToCuda0) {
  TempDir dir;
  for (const char* name :
       {"cpu_state_dict.pt", "cpu_config.pt", "dtypes.pt", "views.pt", "legacy.pt"}) {
    const std::string out = (dir / (std::string("cuda0_") + name)).string();
    remap(fixture(name), out, to("cuda:0"));
    const Checkpoint written = Checkpoint::open(out);  // entries() refers into it
    for (const auto& e : written.entries()) EXPECT_EQ(e.device, "cuda:0") << e.key;
    expect_weights_only_loads(out, fixture(name));
  }
}

TEST(Remap, EveryOutputLoadsWithTorchLoadWeightsOnlyCuda1ToCuda0) {
  TempDir dir;
  MapLocation map = MapLocation::keep();
  map.map("cuda:1", "cuda:0");
  for (const char* name : {"cuda1_config.pt", "cuda1_state_dict.pt", "large_cuda1.pt",
                           "legacy_cuda1.pt", "mixed.pt"}) {
    const std::string out = (dir / (std::string("cuda0_") + name)).string();
    remap(fixture(name), out, RemapOptions().map_location(map));
    expect_weights_only_loads(out, fixture(name));
  }
}

TEST(Remap, StripPrefixOutputLoadsWithTorchLoadWeightsOnly) {
  TempDir dir;
  const std::string kept = (dir / "kept.pt").string();
  remap(fixture("dataparallel.pt"), kept, RemapOptions().strip_prefix("module."));
  expect_weights_only_loads(kept, fixture("dataparallel.pt"), "module.");
  const std::string moved = (dir / "moved.pt").string();
  remap(fixture("dataparallel.pt"), moved, to("cuda:0").strip_prefix("module."));
  expect_weights_only_loads(moved, fixture("dataparallel.pt"), "module.");
}

// The memo-shared user value: the location string the storages use is also
// config["device"]; after the rewrite it is still "cuda:1", read by the
// weights-only unpickler (no POP: "Unsupported operand 48" in 2.6).
TEST(Remap, UserValueSharingTheLocationStringKeepsItsValueUnderWeightsOnly) {
  TempDir dir;
  const std::string out = (dir / "out.pt").string();
  remap(fixture("cuda1_config.pt"), out, to_cpu());
  const auto r = devcheck::testing::run_python(
      "import sys, torch\nd = torch.load(sys.argv[1], weights_only=True)\n"
      "assert d['config'] == {'device': 'cuda:1', 'steps': 3}, d['config']\n"
      "assert d['model']['0.weight'].device.type == 'cpu'\nprint('OK')",
      {out});
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const detail::PickleSource& src = Checkpoint::open(out).parsed().pickles.at(0);
  EXPECT_FALSE(src.pickle.opcodes.test('0')) << "POP in " << src.record;
  for (unsigned op = 0; op < 256; ++op) {
    if (src.pickle.opcodes.test(op)) {
      EXPECT_TRUE(detail::weights_only_opcode(static_cast<unsigned char>(op))) << op;
    }
  }
}

// torch.jit.load reads TorchScript (2.6's torch.load refuses it with
// weights_only=True): the rewrite adds no kind of op to its pickles.
TEST(Remap, TorchScriptToCuda0AddsNoOpAndLoadsOnCpu) {
  TempDir dir;
  const std::string out = (dir / "traced.pt").string();
  const RemapReport report = remap(fixture("traced.pt"), out, to("cuda:0"));
  ASSERT_FALSE(report.moves.empty());
  EXPECT_EQ(report.moves[0].to, "cuda:0");
  const Checkpoint written = Checkpoint::open(out);  // entries() refers into it
  for (const auto& e : written.entries()) EXPECT_EQ(e.device, "cuda:0") << e.key;
  const auto r = torch_check({"jit", fixture("traced.pt"), out, "cpu"});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(Remap, UserValueSharingTheLocationStringKeepsItsValue) {
  // cuda1.pt has config["device"] == the very "cuda:1" object the tagger returned.
  TempDir dir;
  const std::string out = (dir / "out.pt").string();
  remap(fixture("cuda1.pt"), out, to_cpu());
  const auto r = devcheck::testing::run_python(
      "import sys, torch\nd = torch.load(sys.argv[1])\n"
      "assert d['config']['device'] == 'cuda:1', d['config']\n"
      "assert d['model']['0.weight'].device.type == 'cpu'\nprint('OK')",
      {out});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(Remap, ReportCountsStoragesPerMove) {
  TempDir dir;
  const RemapReport r = remap(fixture("mixed.pt"), (dir / "o.pt").string(), to_cpu());
  ASSERT_EQ(r.moves.size(), 2u);
  EXPECT_EQ(r.moves[0].from, "cuda:0");
  EXPECT_EQ(r.moves[0].to, "cpu");
  EXPECT_EQ(r.moves[0].storages, 1u);
  EXPECT_THAT(r.to_text(), HasSubstr("cuda:0 -> cpu"));
  EXPECT_THAT(r.to_json(), HasSubstr("\"moves\""));
}

TEST(Remap, ExactMapLeavesOtherTagsAlone) {
  TempDir dir;
  const std::string out = (dir / "o.pt").string();
  MapLocation map = MapLocation::keep();
  map.map("cuda:0", "cpu");
  remap(fixture("mixed.pt"), out, RemapOptions().map_location(map));
  const Checkpoint first = Checkpoint::open(out);
  for (const auto& e : first.entries()) EXPECT_EQ(e.device, "cpu");
  MapLocation other = MapLocation::keep();
  other.map("cuda:5", "cpu");
  const std::string out2 = (dir / "o2.pt").string();
  remap(fixture("mixed.pt"), out2, RemapOptions().map_location(other));
  const Checkpoint second = Checkpoint::open(out2);
  for (const auto& e : second.entries()) {
    EXPECT_EQ(e.device, e.key == "a" ? "cuda:0" : "cpu");
  }
}

TEST(Remap, StripPrefixRenamesKeysAndMetadata) {
  TempDir dir;
  const std::string out = (dir / "o.pt").string();
  const RemapReport r =
      remap(fixture("dataparallel.pt"), out, RemapOptions().strip_prefix("module."));
  EXPECT_EQ(r.keys_renamed, 9u + 3u);  // 9 tensors and 3 _metadata entries
  expect_torch_equal(fixture("dataparallel.pt"), out, "module.");
  const Checkpoint cp = Checkpoint::open(out);
  for (const auto& e : cp.entries()) {
    EXPECT_EQ(e.key.rfind("module.", 0), std::string::npos) << e.key;
  }
}

TEST(Remap, LegacyFileComesOutInTheZipFormat) {
  TempDir dir;
  for (const char* name : {"legacy.pt", "legacy_cuda1.pt"}) {
    const std::string out = (dir / (std::string("o_") + name)).string();
    const RemapReport r = remap(fixture(name), out, to_cpu());
    EXPECT_TRUE(r.converted_from_legacy);
    EXPECT_EQ(Checkpoint::open(out).format().kind, "zip");
    expect_torch_equal(fixture(name), out);
  }
}

TEST(Remap, TorchScriptLoadsAndCodeLiteralsAreRewrittenOnRequest) {
  TempDir dir;
  const std::string traced = (dir / "traced.pt").string();
  remap(fixture("traced.pt"), traced, to_cpu());
  auto r = torch_check({"jit", fixture("traced.pt"), traced});
  EXPECT_EQ(r.exit_code, 0) << r.output;

  const std::string scripted = (dir / "scripted.pt").string();
  const RemapReport report = remap(fixture("scripted.pt"), scripted, to_cpu().rewrite_code(true));
  ASSERT_FALSE(report.code_rewrites.empty());
  EXPECT_THAT(report.code_rewrites[0], HasSubstr("cuda:0 -> cpu"));
  const Checkpoint cp = Checkpoint::open(scripted);
  for (const auto& lit : cp.parsed().code_literals) EXPECT_EQ(lit.literal, "cpu");
  // The original needs a GPU to run; the rewritten one runs here.
  r = devcheck::testing::run_python(
      "import sys, torch\nm = torch.jit.load(sys.argv[1])\nprint(m(torch.ones(1, 2)))", {scripted});
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(Remap, UnsafeInputIsRefusedAndLeavesNoOutput) {
  TempDir dir;
  for (const char* name : {"evil_system.pt", "evil_eval.pt", "short_record.pt", "view_oob.pt"}) {
    const std::string out = (dir / "o.pt").string();
    try {
      remap(fixture(name), out, to_cpu());
      ADD_FAILURE() << name;
    } catch (const UnsafeContentError& e) {
      EXPECT_THAT(e.message(), HasSubstr(fixture(name)));
    }
    EXPECT_FALSE(std::filesystem::exists(out));
  }
  EXPECT_FALSE(std::filesystem::exists(devcheck::testing::pwned_marker()));
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(Remap, RefusesAnExistingOutputWithoutForce) {
  TempDir dir;
  const std::string out = (dir / "o.pt").string();
  devcheck::testing::write_file(out, "keep me");
  EXPECT_THROW(remap(fixture("cpu_state_dict.pt"), out, to_cpu()), IoError);
  EXPECT_EQ(read_file(out), "keep me");
  remap(fixture("cpu_state_dict.pt"), out, to_cpu().force(true));
  expect_torch_equal(fixture("cpu_state_dict.pt"), out);
}

TEST(Remap, RefusesToWriteOntoItsInput) {
  TempDir dir;
  const std::string in = (dir / "in.pt").string();
  devcheck::testing::write_file(in, read_file(fixture("cpu_state_dict.pt")));
  EXPECT_THROW(remap(in, in, to_cpu().force(true)), IoError);
  EXPECT_EQ(read_file(in), read_file(fixture("cpu_state_dict.pt")));
}

TEST(Remap, StorageRecordsAreCopiedByteForByte) {
  TempDir dir;
  const std::string out = (dir / "o.pt").string();
  remap(fixture("cuda1_state_dict.pt"), out, to_cpu());
  const Checkpoint a = Checkpoint::open(fixture("cuda1_state_dict.pt"));
  const Checkpoint b = Checkpoint::open(out);
  ASSERT_EQ(a.storages().size(), b.storages().size());
  const auto& za = *a.parsed().zip;
  const auto& zb = *b.parsed().zip;
  for (const auto& s : a.storages()) {
    EXPECT_EQ(za.find(s.record)->crc32, zb.find(s.record)->crc32);
    EXPECT_EQ(za.read(*za.find(s.record), 1 << 20), zb.read(*zb.find(s.record), 1 << 20));
  }
}

// A large storage record keeps its offset within a page (the kernel then
// copies whole pages); torch.load reads the result. (ZipWriter's own test
// shifts the records before it.)
TEST(Remap, LargeStorageKeepsItsPageOffsetAndLoadsInTorch) {
  TempDir dir;
  const std::string out = (dir / "o.pt").string();
  remap(fixture("large_cuda1.pt"), out, to_cpu());
  expect_torch_equal(fixture("large_cuda1.pt"), out);
  const Checkpoint a = Checkpoint::open(fixture("large_cuda1.pt"));
  const Checkpoint b = Checkpoint::open(out);
  const auto& za = *a.parsed().zip;
  const auto& zb = *b.parsed().zip;
  EXPECT_NE(za.find("large_cuda1/data.pkl")->crc32, zb.find("large_cuda1/data.pkl")->crc32);
  ASSERT_EQ(a.storages().size(), 1U);
  const std::string& record = a.storages()[0].record;
  const std::uint64_t from = za.data_offset(*za.find(record));
  const std::uint64_t to = zb.data_offset(*zb.find(record));
  EXPECT_EQ(from % 4096, to % 4096);
  EXPECT_EQ(to % 64, 0U);
}

// Records kept as they are go out as one span: their bytes, headers included,
// are the input's, at the same offset within a page, even when the rewritten
// pickle before them changes size (--strip-prefix).
TEST(Remap, KeptRecordsAreCopiedAsTheyAreAfterTheRewrittenPickle) {
  TempDir dir;
  const std::string out = (dir / "o.pt").string();
  remap(fixture("large_cuda1.pt"), out, to_cpu());
  const std::string in_bytes = read_file(fixture("large_cuda1.pt"));
  const std::string out_bytes = read_file(out);
  const Checkpoint a = Checkpoint::open(fixture("large_cuda1.pt"));
  const Checkpoint b = Checkpoint::open(out);
  const auto& za = *a.parsed().zip;
  const auto& zb = *b.parsed().zip;
  std::size_t kept = 0;
  for (const auto& r : za.records()) {
    if (r.name == "large_cuda1/data.pkl") continue;
    const detail::ZipRecord* o = zb.find(r.name);
    ASSERT_NE(o, nullptr) << r.name;
    const std::uint64_t length = za.data_offset(r) + r.compressed_size - r.local_header_offset;
    EXPECT_EQ(out_bytes.substr(o->local_header_offset, length),
              in_bytes.substr(r.local_header_offset, length))
        << r.name;
    EXPECT_EQ(o->local_header_offset % 4096, r.local_header_offset % 4096) << r.name;
    ++kept;
  }
  EXPECT_GE(kept, 2U);
  expect_torch_equal(fixture("large_cuda1.pt"), out);
}

// remap plans the copy from the central directory and checks the local
// headers after it: a local header that disagrees (here a data record's name,
// in the copied run) makes it write the output again, checking
// first, so the record is written with a header of its own.
TEST(Remap, ALocalHeaderThatDisagreesIsFoundAfterTheCopyAndWrittenAfresh) {
  TempDir dir;
  std::string bytes = read_file(fixture("large_cuda1.pt"));
  std::string bad_name;
  {
    const Checkpoint cp = Checkpoint::open(fixture("large_cuda1.pt"));
    const auto& zip = *cp.parsed().zip;
    std::vector<const detail::ZipRecord*> data;
    for (const auto& r : zip.records()) {
      if (r.name.find("/data/") != std::string::npos) data.push_back(&r);
    }
    ASSERT_FALSE(data.empty());
    std::sort(data.begin(), data.end(), [](const auto* a, const auto* b) {
      return a->local_header_offset < b->local_header_offset;
    });
    const detail::ZipRecord& middle = *data[data.size() / 2];
    bad_name = middle.name;
    bytes[middle.local_header_offset + 30] = 'X';  // the name in the local header only
  }
  const std::string bad = (dir / "bad.pt").string();
  devcheck::testing::write_file(bad, bytes);
  const std::string good_out = (dir / "good_out.pt").string();
  const std::string bad_out = (dir / "bad_out.pt").string();
  remap(fixture("large_cuda1.pt"), good_out, to_cpu());
  const RemapReport report = remap(bad, bad_out, to_cpu());
  EXPECT_EQ(read_file(bad), bytes);  // the input is untouched
  EXPECT_EQ(report.bytes_written, read_file(bad_out).size());
  const Checkpoint out = Checkpoint::open(bad_out);
  const auto& zip = *out.parsed().zip;
  ASSERT_NE(zip.find(bad_name), nullptr);
  for (const auto& r : zip.records()) EXPECT_TRUE(zip.local_header_matches(r)) << r.name;
  for (const auto& e : out.entries()) EXPECT_EQ(e.device, "cpu") << e.key;
  expect_torch_equal(good_out, bad_out);
  // Nothing else in the folder: the first attempt left no file behind.
  std::size_t files = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir.path()))
    files += f.is_regular_file();
  EXPECT_EQ(files, 3U);  // bad.pt, good_out.pt, bad_out.pt
}

// A zip whose records carry data descriptors (flag bit 3, as a writer on a
// stream makes them): the span keeps them, the directory says so, torch reads it.
TEST(Remap, RecordsWithDataDescriptorsKeepThemAndLoadInTorch) {
  TempDir dir;
  const std::string streamed = (dir / "streamed.pt").string();
  const auto made = devcheck::testing::run_python(
      "import io, sys, zipfile\n"
      "class Stream(io.RawIOBase):\n"
      "    def __init__(self, f): self.f = f\n"
      "    def writable(self): return True\n"
      "    def write(self, b): return self.f.write(b)\n"
      "src = zipfile.ZipFile(sys.argv[1])\n"
      "with open(sys.argv[2], 'wb') as f:\n"
      "    with zipfile.ZipFile(Stream(f), 'w', zipfile.ZIP_STORED) as z:\n"
      "        for info in src.infolist():\n"
      "            with z.open(info.filename, 'w') as w: w.write(src.read(info))\n"
      "z = zipfile.ZipFile(sys.argv[2])\n"
      "assert all(i.flag_bits & 8 for i in z.infolist())\n"
      "print('OK')",
      {fixture("cuda1.pt"), streamed});
  ASSERT_EQ(made.exit_code, 0) << made.output;
  const std::string out = (dir / "o.pt").string();
  remap(streamed, out, to_cpu());
  const Checkpoint b = Checkpoint::open(out);
  std::size_t described = 0;
  for (const auto& r : b.parsed().zip->records()) described += (r.flags & 8) != 0 ? 1 : 0;
  EXPECT_GT(described, 0U);  // the storages and version, copied as they were
  expect_torch_equal(fixture("cuda1.pt"), out);
}

}  // namespace
}  // namespace devcheck
