// Device literals in TorchScript code, and which saved locations exist here.
#include <gtest/gtest.h>

#include "devcheck/format/device_name.h"
#include "format/reader.h"

namespace devcheck::detail {
namespace {

TEST(DeviceLiterals, FindsQuotedDevicesWithLineAndOffset) {
  const std::string code =
      "def forward(self, x):\n"
      "  # \"cuda:7\" in a comment is not code\n"
      "  a = torch.zeros([2], device=torch.device(\"cuda:0\"))\n"
      "  b = x.to('cpu')\n"
      "  return \"hello\"\n";
  const auto found = find_device_literals("m/code/a.py", "code/a.py", code);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].literal, "cuda:0");
  EXPECT_EQ(found[0].line, 3);
  EXPECT_EQ(code.substr(found[0].begin, 6), "cuda:0");
  EXPECT_EQ(found[1].literal, "cpu");
  EXPECT_EQ(found[1].line, 4);
  EXPECT_EQ(found[1].file, "code/a.py");
}

TEST(DeviceLiterals, IgnoresStringsThatAreNotDevices) {
  EXPECT_TRUE(find_device_literals("r", "f", "x = \"cudaX\" + 'cuda:' + \"gpu\" + \"\"").empty());
  EXPECT_TRUE(find_device_literals("r", "f", "unterminated = \"cuda:0").empty());
}

TEST(LocationAvailable, CpuAndMetaAlwaysCudaOnlyWithDevices) {
  EXPECT_TRUE(location_available("cpu"));
  EXPECT_TRUE(location_available("meta"));
  EXPECT_EQ(location_available("cuda:0"), format::driver_cuda_device_count() > 0);
  EXPECT_FALSE(location_available("cuda:999"));
  EXPECT_FALSE(location_available("not a device"));
}

TEST(LocationAvailable, OnlyCanonicalSpellingsAndNeverTheFakeDevice) {
  // torch.load parses the saved text itself: "CUDA:0" is not its spelling.
  EXPECT_FALSE(location_available("CUDA:0"));
  EXPECT_FALSE(location_available(" cpu"));
  // The fake device exists only in a process that registered it.
  EXPECT_FALSE(location_available("privateuseone:0"));
}

}  // namespace
}  // namespace devcheck::detail
