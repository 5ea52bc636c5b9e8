#include "devcheck/error.h"

#include <utility>

namespace devcheck {

// The SourceLocation constructor is the one c10::Error signature that is the
// same in LibTorch 1.13 and 2.x (the backtrace type changed in between).
Error::Error(ErrorCode code, std::string message)
    : c10::Error(c10::SourceLocation{"devcheck", __FILE__, static_cast<uint32_t>(__LINE__)},
                 message),
      code_(code),
      message_(std::move(message)) {}

}  // namespace devcheck
