#pragma once
// JSON-RPC 2.0 framing as the Language Server Protocol sends it over a
// stream: `Content-Length: N\r\n` (other headers allowed), a blank line, N
// bytes of JSON. The bytes come from whatever the client writes: every
// length is checked, and a malformed header is reported and skipped, never
// trusted. Internal; not thread-safe (one reader).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace devcheck::lsp {

// One framed message, or a framing error the server answers with a
// JSON-RPC error (the stream goes on after it).
struct Frame {
  std::string body;   // the message's bytes (not yet parsed as JSON)
  std::string error;  // non-empty: the header was malformed; body is empty
};

class FrameReader {
 public:
  /// A message body larger than this is refused (and skipped). Default 64 MiB.
  static constexpr std::size_t kMaxBody = std::size_t{64} << 20;
  /// A header block longer than this is malformed. Default 8 KiB.
  static constexpr std::size_t kMaxHeader = 8192;

  // Appends bytes read from the stream.
  void feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole message or framing error, or nullopt when more bytes are
  // needed.
  std::optional<Frame> next();
  // Bytes held that are not yet a whole message.
  std::size_t pending() const { return buffer_.size() - start_; }

 private:
  std::string buffer_;
  std::size_t start_ = 0;
  std::size_t skip_ = 0;  // body bytes still to drop after a refused length
};

// `body` framed with its Content-Length header.
std::string frame(std::string_view body);

}  // namespace devcheck::lsp
