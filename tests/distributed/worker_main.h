#pragma once
// What the rank programs of tests/distributed (worker.cc,
// local_all_reduce_worker.cc) do with an error: its message alone on stderr and
// exit status 3, which the tests tell apart from a crash or a usage error (2).

#include <c10/util/Exception.h>

#include <exception>
#include <iostream>

namespace devcheck::testing {

template <typename Body>
int exit_status_of(Body&& body) {
  try {
    return body();
  } catch (const c10::Error& e) {
    std::cerr << e.what_without_backtrace() << std::endl;
    return 3;
  } catch (const std::exception& e) {
    std::cerr << e.what() << std::endl;
    return 3;
  }
}

}  // namespace devcheck::testing
