#pragma once
// `devcheck lsp`: a Language Server Protocol server over devcheck lint
// (docs/lint.md, "Editors"). Server holds the open buffers and answers each
// message; serve() runs it over a pair of file descriptors with a reader
// and a linting thread. Internal.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/lint.h"
#include "document.h"

namespace devcheck::lint::detail {
class ConfigFinder;
}

namespace devcheck::lsp {

struct ServerOptions {
  /// How long a buffer must go unchanged after didChange before it is
  /// linted (didOpen and didSave lint at once). Default 25 ms.
  std::chrono::milliseconds debounce{25};
};

// Thread-safe: handle() from the reader thread, lint_due() from the linting
// thread; `send` is called with no lock held, one message at a time.
class Server {
 public:
  using Clock = std::chrono::steady_clock;
  using Send = std::function<void(const nlohmann::json&)>;

  Server(ServerOptions options, Send send);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // One message's bytes (a framed body); answers requests through `send`.
  void handle(std::string_view body);
  // A framing error: answered as a JSON-RPC parse error.
  void framing_error(const std::string& message);
  // Lints every buffer whose debounce has passed (every changed buffer with
  // `all`) and publishes its diagnostics. Returns the number linted.
  int lint_due(bool all = false);
  // When the next buffer is due, or nullopt when none waits.
  std::optional<Clock::time_point> next_due() const;
  // Blocks until a buffer is due (true) or `exit` or stop() came (false):
  // the linting thread's loop.
  bool wait_for_work();
  // Whether `exit` came, and the process's exit status then (0 after
  // shutdown, 1 without, as the protocol asks).
  bool exited() const;
  int exit_status() const;
  // Stops wait_for_work (end of input).
  void stop();

 private:
  struct Buffer {
    Document doc;
    std::optional<Clock::time_point> due;  // needs linting from then on
    int linted_version = -1;
    std::vector<lint::Finding> findings;  // of linted_version's text
  };
  struct Settings {
    std::vector<std::string> select;
    std::vector<std::string> ignore;
  };

  nlohmann::json dispatch(const std::string& method, const nlohmann::json& params, bool& is_error);
  void did_change_configuration(const nlohmann::json& params);
  nlohmann::json code_action(const nlohmann::json& params);
  void schedule(Buffer& buffer, bool now);
  std::vector<lint::Finding> lint(const Document& doc);
  void send(const nlohmann::json& message);

  ServerOptions options_;
  Send send_;
  mutable std::mutex mutex_;
  std::mutex send_mutex_;
  std::condition_variable work_;
  std::map<std::string, Buffer> buffers_;
  Settings settings_;
  std::shared_ptr<lint::detail::ConfigFinder> configs_;  // replaced when pyproject.toml is saved
  bool initialized_ = false;
  bool shut_down_ = false;
  bool exited_ = false;
  bool stopped_ = false;
};

// Runs a server on `in` and `out` (the process's stdin and stdout) until
// `exit` or the end of input; returns the exit status.
int serve(int in, int out, ServerOptions options = {});

}  // namespace devcheck::lsp
