#include "devcheck/error.h"

#include <cstdint>
#include <utility>

namespace devcheck {

// The SourceLocation constructor is the one c10::Error signature that is the
// same in LibTorch 1.13 and 2.x (the backtrace type changed in between).
// SourceLocation keeps the pointers: __builtin_FILE()/__builtin_FUNCTION()
// are string literals, alive for the whole program.
Error::Error(ErrorCode code, std::string message, const char* file, int line, const char* function)
    : c10::Error(c10::SourceLocation{function, file, static_cast<std::uint32_t>(line)}, message),
      code_(code),
      message_(std::move(message)),
      file_(file),
      line_(line),
      function_(function) {}

}  // namespace devcheck
