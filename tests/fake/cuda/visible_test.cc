// CUDA_VISIBLE_DEVICES read as the CUDA runtime reads it, over a machine of
// fake CUDA devices.

#include "fake/cuda/visible.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace devcheck::detail {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CudaVisibleDevices, UnsetShowsEveryDeviceInOrder) {
  EXPECT_THAT(cuda_visible_devices(nullptr, 3), ElementsAre(0, 1, 2));
}

TEST(CudaVisibleDevices, EmptyOrMinusOneShowsNone) {
  EXPECT_THAT(cuda_visible_devices("", 2), IsEmpty());
  EXPECT_THAT(cuda_visible_devices("-1", 2), IsEmpty());
  EXPECT_THAT(cuda_visible_devices(" ", 2), IsEmpty());
}

TEST(CudaVisibleDevices, TheListChoosesTheDevicesAndTheirOrder) {
  EXPECT_THAT(cuda_visible_devices("1", 2), ElementsAre(1));
  EXPECT_THAT(cuda_visible_devices("1,0", 2), ElementsAre(1, 0));
  EXPECT_THAT(cuda_visible_devices("2,0", 4), ElementsAre(2, 0));
  EXPECT_THAT(cuda_visible_devices(" 1 , 0", 2), ElementsAre(1, 0));
  EXPECT_THAT(cuda_visible_devices("+1", 2), ElementsAre(1));
}

TEST(CudaVisibleDevices, TheListEndsAtTheFirstInvalidEntry) {
  // NVIDIA's example: 0,2,-1,1 shows devices 0 and 2.
  EXPECT_THAT(cuda_visible_devices("0,2,-1,1", 3), ElementsAre(0, 2));
  // an index the machine does not have ends it too
  EXPECT_THAT(cuda_visible_devices("0,5,1", 2), ElementsAre(0));
  EXPECT_THAT(cuda_visible_devices("5,0", 2), IsEmpty());
  // text that is no number, and an empty entry
  EXPECT_THAT(cuda_visible_devices("1,gpu0,0", 2), ElementsAre(1));
  EXPECT_THAT(cuda_visible_devices("0,,1", 2), ElementsAre(0));
  EXPECT_THAT(cuda_visible_devices("+,0", 2), IsEmpty());
}

TEST(CudaVisibleDevices, AnEntryIsTheNumberItStartsWith) {
  // strtoul, as torch's _parse_visible_devices says: "1gpu2,2ampere" is "1,2"
  EXPECT_THAT(cuda_visible_devices("1gpu2,2ampere", 3), ElementsAre(1, 2));
  EXPECT_THAT(cuda_visible_devices("-0", 2), ElementsAre(0));
  EXPECT_THAT(cuda_visible_devices("99999999999999999999", 2), IsEmpty());
}

TEST(CudaVisibleDevices, AnIndexNamedTwiceHidesEveryDevice) {
  EXPECT_THAT(cuda_visible_devices("0,0", 2), IsEmpty());
  EXPECT_THAT(cuda_visible_devices("1,0,1", 2), IsEmpty());
  // the list ended before the repeat
  EXPECT_THAT(cuda_visible_devices("0,-1,0", 2), ElementsAre(0));
}

TEST(CudaVisibleDevices, UuidsNameRealGpusAndNoFakeOne) {
  EXPECT_THAT(cuda_visible_devices("GPU-8932f937-d72c-4106-c12f-20bd9faed9f6", 2), IsEmpty());
  EXPECT_THAT(cuda_visible_devices("MIG-GPU-8932f937/1/0", 2), IsEmpty());
}

}  // namespace
}  // namespace devcheck::detail
