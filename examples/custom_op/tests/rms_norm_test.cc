#include "rms_norm.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

TEST(RmsNorm, Smoke) {
  auto x = torch::randn({3, 5});
  auto w = torch::randn({5});
  auto y = devcheck::rms_norm(x, w);
  auto ref = x * torch::rsqrt(x.pow(2).mean(-1, true) + 1e-6) * w;
  EXPECT_TRUE(torch::allclose(y, ref));
}
