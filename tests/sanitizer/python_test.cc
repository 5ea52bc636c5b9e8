// The Python side runs under `devcheck run` (run_test.cc); here, without an
// interpreter in the process, it must stay out of the way.
#include "sanitizer/python.h"

#include <gtest/gtest.h>

namespace devcheck::sanitizer {
namespace {

TEST(Python, AbsentFromAPlainCppProcess) {
  EXPECT_FALSE(python_present());
  EXPECT_EQ(python_location(), "");
}

TEST(Python, TorchsOwnFilesAreNotTheUsers) {
  EXPECT_TRUE(is_torch_python_file("/usr/lib/python3/dist-packages/torch/nn/modules/module.py"));
  EXPECT_TRUE(is_torch_python_file("/venv/lib/python3.11/site-packages/torch/_tensor.py"));
  EXPECT_TRUE(is_torch_python_file("<frozen importlib._bootstrap>"));
  EXPECT_FALSE(is_torch_python_file("/home/me/train.py"));
  EXPECT_FALSE(is_torch_python_file("/home/me/torch/train.py"));
}

}  // namespace
}  // namespace devcheck::sanitizer
