// The fake backends' devices: the per-device generators and the
// device-index errors of each kind.

#include <ATen/CPUGeneratorImpl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "detail/compat.h"
#include "devcheck/fake_cuda.h"
#include "devcheck/fake_device.h"
#include "fake/backend.h"
#include "fake/error_of.h"

namespace devcheck::detail {
namespace {

using ::testing::HasSubstr;

using testing::error_of;

TEST(FakeBackend, FakeCudaHasOneGeneratorPerDeviceAndTheAcceleratorTheCpus) {
  fake_cuda(2);
  EXPECT_NE(fake_generator(FakeKind::kCuda, 0).unsafeGetGeneratorImpl(),
            fake_generator(FakeKind::kCuda, 1).unsafeGetGeneratorImpl());
  EXPECT_EQ(fake_generator(FakeKind::kAccelerator, 1).unsafeGetGeneratorImpl(),
            at::detail::getDefaultCPUGenerator().unsafeGetGeneratorImpl());
  EXPECT_THAT(error_of([] { (void)fake_generator(FakeKind::kCuda, 2); }),
              HasSubstr("CUDA error: invalid device ordinal"));
}

TEST(FakeBackend, EachKindNamesAnIndexItDoesNotHaveInItsOwnWords) {
  fake_cuda(2);
  fake_device(0);
  EXPECT_EQ(error_of([] { fake_check_index(FakeKind::kCuda, 2, "set device"); }),
            std::string("CUDA error: invalid device ordinal") + DEVCHECK_CUDA_CHECK_SUFFIX);
  EXPECT_EQ(error_of([] { fake_check_index(FakeKind::kAccelerator, 5, "set device"); }),
            "set device: fake device index 5 is out of range: this process has 2 fake devices "
            "(DEVCHECK_FAKE_DEVICES)");
  EXPECT_EQ(error_of([] { fake_check_index(FakeKind::kCuda, 1, "x"); }), "(no error)");
}

}  // namespace
}  // namespace devcheck::detail
