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

TEST(Python, TorchsAndDevchecksOwnFilesAreNotTheUsers) {
  EXPECT_TRUE(is_library_python_file("/usr/lib/python3/dist-packages/torch/nn/modules/module.py"));
  EXPECT_TRUE(is_library_python_file("/venv/lib/python3.11/site-packages/torch/_tensor.py"));
  EXPECT_TRUE(is_library_python_file("<frozen importlib._bootstrap>"));
  EXPECT_FALSE(is_library_python_file("/home/me/train.py"));
  EXPECT_FALSE(is_library_python_file("/home/me/torch/train.py"));
  // devcheck's own: fake CUDA's torch.cuda.comm emulation is not the user's copy
  EXPECT_TRUE(is_library_python_file("/usr/share/devcheck/python/devcheck_fake_cuda/_comm.py"));
  EXPECT_TRUE(is_library_python_file("/src/devcheck/python/devcheck_fake_cuda/_torch_c.py"));
  EXPECT_TRUE(is_library_python_file("/build/share/devcheck/python/site/sitecustomize.py"));
  EXPECT_TRUE(is_library_python_file("/work/devcheck/python/devcheck_fake.py"));
  EXPECT_TRUE(is_library_python_file("/venv/lib/python3.14/site-packages/devcheck/_watch.py"));
  EXPECT_FALSE(is_library_python_file("/home/me/devcheck_experiments/train.py"));
  EXPECT_FALSE(is_library_python_file("/home/me/sitecustomize.py"));
}

}  // namespace
}  // namespace devcheck::sanitizer
