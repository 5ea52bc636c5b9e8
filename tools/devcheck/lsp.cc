// devcheck lsp [--debounce-ms N]: devcheck lint as a Language Server
// Protocol server on stdin and stdout, for editors (docs/lint.md, "Editors").
#include <unistd.h>

#include <chrono>
#include <memory>

#include "command.h"
#include "lsp/server.h"

namespace devcheck::cli {
namespace {

Runner setup_lsp(CLI::App& sub, Streams& /*io*/) {
  auto debounce = std::make_shared<int>(25);
  sub.add_option("--debounce-ms", *debounce,
                 "Lint a changed buffer once it has been unchanged this long (default 25)")
      ->check(CLI::Range(0, 10000));
  sub.footer(
      "Speaks LSP (JSON-RPC with Content-Length framing) on stdin/stdout; start it from the "
      "editor. Exit status: 0 after shutdown then exit, 1 when the input ends first or exit "
      "comes without shutdown, 2 bad usage.");
  return [debounce]() {
    lsp::ServerOptions options;
    options.debounce = std::chrono::milliseconds(*debounce);
    return lsp::serve(STDIN_FILENO, STDOUT_FILENO, options);
  };
}

const CommandRegistrar kLsp("lsp", "Serve devcheck lint to editors (Language Server Protocol)", 26,
                            setup_lsp);

}  // namespace
}  // namespace devcheck::cli
