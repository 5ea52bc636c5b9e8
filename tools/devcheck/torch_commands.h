#pragma once
// The commands that need LibTorch. The `devcheck` program itself never loads
// LibTorch: it lists these in --help and hands them, with the whole command
// line, to the helper program devcheck-torch (forward.cc), which links
// libdevcheck and runs them (doctor.cc, run.cc, train.cc).

namespace devcheck::cli {

struct CommandInfo {
  const char* name;
  const char* description;
  int order;  // sorts --help
};

inline constexpr CommandInfo kDoctorCommand{
    "doctor", "Show LibTorch build facts, devices and the auto choice", 10};
inline constexpr CommandInfo kRunCommand{
    "run",
    "Run a command under the device sanitizer (C++ or python3): mismatches, origins, copies, "
    "syncs",
    40};
inline constexpr CommandInfo kTrainCommand{
    "train", "Train the Fashion-MNIST classifier (prefetch, AMP, checkpoints)", 60};

inline constexpr CommandInfo kTorchCommands[] = {kDoctorCommand, kRunCommand, kTrainCommand};

}  // namespace devcheck::cli
