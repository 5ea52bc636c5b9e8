// devcheck lsp on untrusted bytes: the input is the stream a client writes,
// cut into reads at the places its first bytes choose; every framed body is
// handled by a server (answers are serialised and must parse back), then
// every buffer is linted. Nothing may crash, hang or leave an answer that is
// not JSON-RPC.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "lsp/jsonrpc.h"
#include "lsp/server.h"

namespace {

void check_answer(const nlohmann::json& message) {
  const std::string text = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  const nlohmann::json back = nlohmann::json::parse(text, nullptr, false);
  if (back.is_discarded() || !back.is_object() || back.value("jsonrpc", "") != "2.0") {
    std::fprintf(stderr, "an answer is not JSON-RPC: %s\n", text.c_str());
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  devcheck::lsp::Server server({std::chrono::milliseconds(0)}, check_answer);
  // A session's start, so that document messages in the input are served.
  server.handle(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}})");
  devcheck::lsp::FrameReader reader;
  std::size_t at = 0;
  std::size_t step = size == 0 ? 1 : 1 + data[0] % 64;
  while (at < input.size()) {
    const std::size_t n = std::min(step, input.size() - at);
    reader.feed(input.substr(at, n));
    at += n;
    step = 1 + (step * 7 + n) % 257;
    while (auto frame = reader.next()) {
      if (!frame->error.empty()) {
        server.framing_error(frame->error);
      } else {
        server.handle(frame->body);
      }
    }
  }
  // The whole input as one message too (mutated JSON reaches the handlers).
  server.handle(input);
  server.lint_due(/*all=*/true);
  return 0;
}
