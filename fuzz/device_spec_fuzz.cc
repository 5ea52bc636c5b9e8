// DeviceSpec::parse reads user text (flags, DEVCHECK_DEVICE): any input either
// parses to a spec whose canonical text parses back to itself, or throws
// InvalidArgumentError; nothing else.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "devcheck/device.h"
#include "devcheck/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const devcheck::DeviceSpec spec = devcheck::DeviceSpec::parse(text);
    if (!(devcheck::DeviceSpec::parse(spec.str()) == spec)) std::abort();
  } catch (const devcheck::InvalidArgumentError&) {
  }
  return 0;
}
