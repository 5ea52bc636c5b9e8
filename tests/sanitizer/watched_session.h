#pragma once
// Shared by watch_test.cc and record_test.cc: every test runs in a sanitizer
// session that traces, on this thread, with the fake accelerator as the
// second device (it computes, and fails on mixed devices as CUDA does).

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "devcheck/fake_device.h"
#include "sanitizer/engine.h"

namespace devcheck::sanitizer {

inline const c10::Device kCpu("cpu");

inline c10::Device fake(int index = 0) { return fake_device(index); }
inline at::TensorOptions on_fake(int index = 0) { return at::TensorOptions().device(fake(index)); }

class WatchedSession : public ::testing::Test {
 protected:
  void SetUp() override { Engine::get().start(SanitizerOptions().trace(true)); }
  void TearDown() override { Engine::get().stop(); }
};

}  // namespace devcheck::sanitizer
