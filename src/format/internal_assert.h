#pragma once
// The format library's check for its own bugs (LibTorch's TORCH_INTERNAL_ASSERT,
// without LibTorch): a broken invariant of devcheck's code, never the input's
// fault, so it throws std::logic_error rather than a format::Error.

#include <stdexcept>
#include <string>

#define DEVCHECK_INTERNAL_ASSERT(cond, what)                                              \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      throw std::logic_error(std::string("[devcheck] internal error: ") + (what) + " (" + \
                             __FILE__ + ":" + std::to_string(__LINE__) + ")");            \
    }                                                                                     \
  } while (false)
