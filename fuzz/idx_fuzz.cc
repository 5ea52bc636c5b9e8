// The Fashion-MNIST reader takes files from --data DIR: untrusted bytes. Any
// input either inflates (when gzip) and parses to an array whose element
// count is the product of its shape, or throws FormatError; nothing else.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "classifier/fashion_mnist.h"
#include "devcheck/error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    // A small inflate bound keeps the fuzzer's memory flat; the parser's
    // checks do not depend on it.
    const std::string raw = devcheck::gunzip(bytes, "fuzz-input", std::size_t{1} << 24);
    const devcheck::IdxArray array = devcheck::parse_idx(raw, "fuzz-input");
    std::size_t count = 1;
    for (const int64_t dim : array.shape) count *= static_cast<std::size_t>(dim);
    if (array.shape.empty() || count != array.data.size()) std::abort();
  } catch (const devcheck::FormatError&) {
  }
  return 0;
}
