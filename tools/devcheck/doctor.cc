// devcheck doctor: LibTorch build facts, devices, and what "auto" would choose.
#include <ostream>

#include "command.h"
#include "devcheck/doctor.h"
#include "devcheck/fake_cuda.h"
#include "torch_commands.h"

namespace devcheck::cli {
namespace {

Runner setup_doctor(CLI::App& sub, Streams& io) {
  auto json = std::make_shared<bool>(false);
  sub.add_flag("--json", *json, "Print the report as JSON");
  return [json, &io]() {
    // DEVCHECK_FAKE_CUDA=N: N fake CUDA devices, as under `devcheck run --fake-cuda`.
    start_fake_cuda_from_environment();
    const EnvironmentReport report = environment_report();
    io.out << (*json ? report.to_json() + "\n" : report.to_text());
    return kExitOk;
  };
}

const CommandRegistrar kDoctor(kDoctorCommand.name, kDoctorCommand.description,
                               kDoctorCommand.order, setup_doctor);

}  // namespace
}  // namespace devcheck::cli
