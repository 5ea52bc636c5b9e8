// CUDA_VISIBLE_DEVICES as the CUDA runtime reads it (NVIDIA's CUDA C++
// Programming Guide, "CUDA Environment Variables"; torch/cuda/__init__.py's
// _parse_visible_devices, which follows the runtime, for the cases the guide
// leaves open: repeated indices, text after a number).

#include "fake/cuda/visible.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>

namespace devcheck::detail {
namespace {

// The number `entry` starts with after blanks, as strtoul reads it (an
// optional sign, then digits); -1 when it starts with no number or with a
// negative one.
long long leading_number(const std::string& entry) {  // NOLINT(google-runtime-int)
  std::size_t i = 0;
  while (i < entry.size() && std::isspace(static_cast<unsigned char>(entry[i])) != 0) ++i;
  bool negative = false;
  if (i < entry.size() && (entry[i] == '+' || entry[i] == '-')) negative = entry[i++] == '-';
  const std::size_t digits = i;
  long long value = 0;  // NOLINT(google-runtime-int)
  while (i < entry.size() && std::isdigit(static_cast<unsigned char>(entry[i])) != 0) {
    value = std::min(value * 10 + (entry[i++] - '0'), 1LL << 40);
  }
  if (i == digits) return -1;
  return negative && value != 0 ? -1 : value;
}

}  // namespace

std::vector<int> cuda_visible_devices(const char* value, int count) {
  std::vector<int> visible;
  if (value == nullptr) {
    for (int i = 0; i < count; ++i) visible.push_back(i);
    return visible;
  }
  if (std::strncmp(value, "GPU-", 4) == 0 || std::strncmp(value, "MIG-", 4) == 0) return visible;
  const std::string text(value);
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const long long index = leading_number(text.substr(start, end - start));  // NOLINT
    if (index < 0 || index >= count) break;
    if (std::find(visible.begin(), visible.end(), static_cast<int>(index)) != visible.end()) {
      return {};
    }
    visible.push_back(static_cast<int>(index));
    start = end + 1;
  }
  return visible;
}

}  // namespace devcheck::detail
