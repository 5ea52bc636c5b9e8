// Content-Length framing: headers up to a blank line, then the body.
#include "jsonrpc.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace devcheck::lsp {
namespace {

bool equals_lower(std::string_view a, std::string_view lower) {
  if (a.size() != lower.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != lower[i]) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<Frame> FrameReader::next() {
  // Drop what was consumed once it is most of the buffer (amortised O(n)).
  if (start_ > 0 && start_ * 2 >= buffer_.size()) {
    buffer_.erase(0, start_);
    start_ = 0;
  }
  if (skip_ > 0) {
    const std::size_t n = std::min(skip_, pending());
    start_ += n;
    skip_ -= n;
    if (skip_ > 0) return std::nullopt;
  }
  const std::string_view rest = std::string_view(buffer_).substr(start_);
  const auto end = rest.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (rest.size() > kMaxHeader) {
      // No blank line in sight: drop all but a tail that may hold the start
      // of one.
      start_ = buffer_.size() - 3;
      return Frame{{}, "the message header has no blank line within 8192 bytes"};
    }
    return std::nullopt;
  }
  const std::string_view header = rest.substr(0, end);
  std::optional<std::size_t> length;
  std::string error;
  std::size_t line_start = 0;
  while (line_start <= header.size() && error.empty()) {
    auto line_end = header.find("\r\n", line_start);
    if (line_end == std::string_view::npos) line_end = header.size();
    const std::string_view line = header.substr(line_start, line_end - line_start);
    line_start = line_end + 2;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) {
      error = "a header line has no ':' (expected Content-Length: N)";
      break;
    }
    if (!equals_lower(trim(line.substr(0, colon)), "content-length")) continue;
    const std::string_view value = trim(line.substr(colon + 1));
    std::size_t n = 0;
    bool ok = !value.empty() && value.size() <= 12;
    for (const char c : value) {
      ok = ok && std::isdigit(static_cast<unsigned char>(c)) != 0;
      if (ok) n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    if (!ok) {
      error = "Content-Length is not a number: '" + std::string(value.substr(0, 40)) + "'";
    } else if (n > kMaxBody) {
      error = "Content-Length " + std::to_string(n) + " is over the limit of 64 MiB";
      skip_ = n;
    } else {
      length = n;
    }
  }
  if (error.empty() && !length) error = "the message header has no Content-Length";
  if (!error.empty()) {
    start_ += end + 4;
    if (skip_ > 0) {
      const std::size_t n = std::min(skip_, pending());
      start_ += n;
      skip_ -= n;
    }
    return Frame{{}, error};
  }
  if (rest.size() - end - 4 < *length) return std::nullopt;
  Frame frame{std::string(rest.substr(end + 4, *length)), {}};
  start_ += end + 4 + *length;
  return frame;
}

std::string frame(std::string_view body) {
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out.append(body);
  return out;
}

}  // namespace devcheck::lsp
