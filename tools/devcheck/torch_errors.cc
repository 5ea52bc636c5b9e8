// LibTorch's errors in the programs that link it (devcheck-torch and the CLI
// tests): devcheck::Error by its category, any other c10::Error as bad input.
#include <ostream>

#include "command.h"
#include "devcheck/error.h"

namespace devcheck::cli {
namespace {

int report_torch_error(const std::exception_ptr& error, std::ostream& err) {
  try {
    std::rethrow_exception(error);
  } catch (const Error& e) {
    err << in_cli_terms(e.message()) << "\n";
    return exit_code_for(e.code());
  } catch (const c10::Error& e) {
    err << "devcheck: " << e.what_without_backtrace() << "\n";
    return kExitBadInput;
  } catch (...) {
    return -1;
  }
}

const ErrorReporterRegistrar kTorchErrors(report_torch_error);

}  // namespace
}  // namespace devcheck::cli
