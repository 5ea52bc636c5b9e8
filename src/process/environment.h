#pragma once
// The environment a child gets: this process's, edited. Entries are
// "NAME=value", in environ's order. Torch-free. Not thread-safe against
// setenv/putenv on another thread (they change environ as it is read).

#include <string>
#include <vector>

namespace devcheck::detail {

/// This process's environment with `set` ("NAME=value" each) replacing the
/// entries of the same names; `set` comes last, in its order.
std::vector<std::string> environment_with(const std::vector<std::string>& set);

/// This process's environment without the entries that start with one of
/// `prefixes`: "LD_PRELOAD=" drops that variable, "DEVCHECK_SANITIZE" every
/// variable whose name starts so.
std::vector<std::string> environment_without(const std::vector<std::string>& prefixes);

}  // namespace devcheck::detail
