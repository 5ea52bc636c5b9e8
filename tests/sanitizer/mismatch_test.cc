// One rule for check_same_device() and the sanitizer: the same tensors give
// the same expected device, the same strays, the same device counts and the
// same fix (src/detail/mismatch.cc), on the fake accelerator.
#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "devcheck/check.h"
#include "devcheck/error.h"
#include "devcheck/fake_device.h"
#include "devcheck/sanitizer.h"

using ::testing::HasSubstr;

namespace devcheck {
namespace {

at::Tensor on(c10::Device device, std::vector<int64_t> shape) {
  return at::ones(shape, at::TensorOptions().device(device));
}

// The rest of the line of `text` that starts with `prefix` (empty: none).
std::string line_after(const std::string& text, const std::string& prefix) {
  const auto at = text.find(prefix);
  if (at == std::string::npos) return {};
  const auto start = at + prefix.size();
  const auto end = text.find('\n', start);
  return text.substr(start, end == std::string::npos ? end : end - start);
}

// Whether the table row of `name` in `text` is marked as a stray.
bool marked(const std::string& text, const std::string& name) {
  return line_after(text, "\n  " + name + " ").find("<- not on ") != std::string::npos;
}

struct Case {
  std::string op;                   // the watched op's schema name
  std::vector<std::string> names;   // its tensor arguments, as the schema names them
  std::vector<at::Tensor> tensors;  // made before the sanitizer starts: no origin
  std::function<void()> call;
  c10::Device expected;
};

// Runs `c` through check_same_device() and through the sanitizer, and checks
// that both say the same thing.
void expect_same_advice(const Case& c) {
  SCOPED_TRACE(c.op);
  std::vector<NamedTensor> named;
  for (size_t i = 0; i < c.tensors.size(); ++i) named.emplace_back(c.names[i], c.tensors[i]);
  std::string checked;
  try {
    check_same_device(named, c.op);
    ADD_FAILURE() << "check_same_device passed";
  } catch (const DeviceMismatchError& e) {
    checked = e.message();
  }
  SanitizerReport report;
  {
    Sanitizer sanitizer(SanitizerOptions().print_summary(false));
    try {
      c.call();
    } catch (const c10::Error&) {  // LibTorch refuses most of these ops: that is the point
    }
    report = sanitizer.report();
  }
  const SanitizerFinding* found = nullptr;
  for (const auto& f : report.findings) {
    if (f.kind == FindingKind::kDeviceMismatch && f.op == c.op) found = &f;
  }
  ASSERT_NE(found, nullptr) << report.to_text();
  const SanitizerFinding& f = *found;

  EXPECT_EQ(f.expected, c.expected);
  EXPECT_THAT(checked, HasSubstr("<- not on " + c.expected.str()));
  ASSERT_EQ(f.arguments.size(), c.names.size());
  for (const auto& a : f.arguments) {
    EXPECT_EQ(a.stray, marked(checked, a.name)) << a.name << "\n" << checked;
    EXPECT_EQ(a.stray, marked(f.message, a.name)) << a.name << "\n" << f.message;
  }
  EXPECT_EQ(line_after(checked, "found "), line_after(f.message, "found "));
  EXPECT_EQ(line_after(checked, "\nfix: "), f.fix);
  EXPECT_EQ(line_after(f.message, "\nfix: "), f.fix);
  EXPECT_THAT(f.fix, HasSubstr(" to " + c.expected.str() + " once"));
}

TEST(MismatchRule, TheMajorityDeviceIsExpectedByBoth) {
  const c10::Device fake = fake_device(0);
  const c10::Device cpu(c10::kCPU);
  std::vector<at::Tensor> t{on(fake, {2}), on(cpu, {2}), on(cpu, {2})};
  expect_same_advice(
      {"aten::cat", {"tensors[0]", "tensors[1]", "tensors[2]"}, t, [&] { (void)at::cat(t); }, cpu});
}

TEST(MismatchRule, ATieBetweenTheCpuAndADeviceGoesToTheDeviceForBoth) {
  const c10::Device fake = fake_device(0);
  std::vector<at::Tensor> t{on(c10::kCPU, {3}), on(fake, {3})};
  expect_same_advice({"aten::add", {"self", "other"}, t, [&] { (void)at::add(t[0], t[1]); }, fake});
}

TEST(MismatchRule, ATieBetweenTwoDevicesGoesToTheFirstSeenForBoth) {
  std::vector<at::Tensor> t{on(fake_device(1), {3}), on(fake_device(0), {3})};
  expect_same_advice(
      {"aten::mul", {"self", "other"}, t, [&] { (void)at::mul(t[0], t[1]); }, fake_device(1)});
}

TEST(MismatchRule, ZeroDimCpuTensorsCountForNeitherSide) {
  // Counted, the three CPU tensors would outvote the two on the device.
  const c10::Device fake = fake_device(0);
  std::vector<at::Tensor> t{on(fake, {2, 3}), on(fake, {3}), at::scalar_tensor(0.0),
                            at::scalar_tensor(0.0), on(c10::kCPU, {3})};
  expect_same_advice(
      {"aten::batch_norm",
       {"input", "weight", "bias", "running_mean", "running_var"},
       t,
       [&] { (void)at::batch_norm(t[0], t[1], t[2], t[3], t[4], false, 0.1, 1e-5, false); },
       fake});
}

}  // namespace
}  // namespace devcheck
