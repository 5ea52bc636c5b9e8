// Device literals in TorchScript code/ and whether a saved location exists here.
#include <cctype>

#include "devcheck/format/device_name.h"
#include "devcheck/format/error.h"
#include "format/reader.h"

namespace devcheck::detail {
namespace {

bool looks_like_device(std::string_view s) {
  static const char* const kTypes[] = {"cpu", "cuda",   "mps",  "meta",   "xpu",          "xla",
                                       "hpu", "ipu",    "mtia", "vulkan", "hip",          "lazy",
                                       "ort", "mkldnn", "ve",   "fpga",   "privateuseone"};
  if (s.empty() || s.size() > 24) return false;
  const std::size_t colon = s.find(':');
  const std::string_view type = s.substr(0, colon);
  if (colon != std::string_view::npos) {
    const std::string_view index = s.substr(colon + 1);
    if (index.empty() || index.size() > 4) return false;
    for (const char c : index) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
  }
  for (const char* t : kTypes) {
    if (type == t) return true;
  }
  return false;
}

}  // namespace

std::vector<CodeLiteral> find_device_literals(const std::string& record, const std::string& file,
                                              std::string_view text) {
  std::vector<CodeLiteral> out;
  int line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      continue;
    }
    if (c == '#') {  // a comment runs to the end of the line
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
      continue;
    }
    if (c != '"' && c != '\'') continue;
    std::size_t j = i + 1;
    while (j < text.size() && text[j] != c && text[j] != '\n') {
      if (text[j] == '\\') ++j;
      ++j;
    }
    if (j >= text.size() || text[j] != c) {
      i = j < text.size() ? j - 1 : j;  // unterminated: resume at the line end
      continue;
    }
    const std::string_view literal = text.substr(i + 1, j - i - 1);
    if (looks_like_device(literal)) {
      out.push_back({record, file, line, i + 1, std::string(literal)});
    }
    i = j;
  }
  return out;
}

bool location_available(const std::string& location) {
  try {
    const format::Device device = format::parse_device(location);
    // Only canonical spellings count: torch.load parses the saved text itself.
    return device.str() == location && format::device_available(device);
  } catch (const format::Error&) {
    return false;
  }
}

}  // namespace devcheck::detail
