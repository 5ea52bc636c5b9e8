// The launcher as its own process, for the tests where signals and process
// lifetimes are the point (launch_test.cc): devcheck::launch on this
// process's stdout and stderr, as `devcheck launch` calls it.
//
//   launcher NPROC GRACE_SECONDS COMMAND ARGS...
#include <cstdlib>
#include <iostream>

#include "devcheck/launch.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: launcher NPROC GRACE_SECONDS COMMAND ARGS...\n";
    return 2;
  }
  devcheck::LaunchOptions options;
  options.nproc = std::atoi(argv[1]);
  options.grace_seconds = std::atof(argv[2]);
  options.command.assign(argv + 3, argv + argc);
  return devcheck::launch(options, std::cout, std::cerr);
}
