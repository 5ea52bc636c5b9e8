// The server: buffers, settings, requests; serve() runs it over stdio.
#include "server.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <thread>
#include <utility>

#include "devcheck/version.h"
#include "diagnostics.h"
#include "jsonrpc.h"
#include "lint/checker.h"
#include "lint/config.h"
#include "lint/notebook.h"

namespace devcheck::lsp {
namespace {

// JSON-RPC's and the protocol's error codes.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;
constexpr int kServerNotInitialized = -32002;

nlohmann::json error_response(const nlohmann::json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

// A list of rule ids from a setting: ["DC101", "DC105"] or "DC101,DC105".
std::vector<std::string> rule_list(const nlohmann::json& value) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& text) {
    std::string id;
    for (const char c : text + ",") {
      if (c == ',' || c == ' ') {
        if (!id.empty()) out.push_back(id);
        id.clear();
      } else {
        id += c;
      }
    }
  };
  if (value.is_string()) add(value.get<std::string>());
  if (value.is_array()) {
    for (const auto& v : value) {
      if (v.is_string()) add(v.get<std::string>());
    }
  }
  return out;
}

class BadParams : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const nlohmann::json& member(const nlohmann::json& object, const char* key, const char* what) {
  if (!object.is_object() || !object.contains(key)) {
    throw BadParams(std::string("params have no ") + what);
  }
  return object[key];
}

std::string string_member(const nlohmann::json& object, const char* key, const char* what) {
  const nlohmann::json& v = member(object, key, what);
  if (!v.is_string()) throw BadParams(std::string(what) + " is not a string");
  return v.get<std::string>();
}

int int_member(const nlohmann::json& object, const char* key, int otherwise) {
  if (!object.is_object() || !object.contains(key) || !object[key].is_number_integer()) {
    return otherwise;
  }
  return object[key].get<int>();
}

Position position_of(const nlohmann::json& p) {
  if (!p.is_object() || !p.contains("line") || !p.contains("character") ||
      !p["line"].is_number_integer() || !p["character"].is_number_integer()) {
    throw BadParams("a position is not {line, character}");
  }
  return {p["line"].get<int>(), p["character"].get<int>()};
}

}  // namespace

Server::Server(ServerOptions options, Send send)
    : options_(options),
      send_(std::move(send)),
      configs_(std::make_shared<lint::detail::ConfigFinder>()) {}

Server::~Server() = default;

void Server::send(const nlohmann::json& message) {
  const std::lock_guard<std::mutex> lock(send_mutex_);
  send_(message);
}

void Server::framing_error(const std::string& message) {
  send(error_response(nullptr, kParseError, "[devcheck lsp] " + message));
}

void Server::handle(std::string_view body) {
  nlohmann::json message;
  try {
    message = nlohmann::json::parse(body.begin(), body.end());
  } catch (const nlohmann::json::parse_error& e) {
    send(error_response(nullptr, kParseError,
                        std::string("[devcheck lsp] the message is not JSON: ") + e.what()));
    return;
  }
  const bool has_id = message.is_object() && message.contains("id") &&
                      (message["id"].is_string() || message["id"].is_number_integer());
  const nlohmann::json id = has_id ? message["id"] : nlohmann::json(nullptr);
  if (!message.is_object() || !message.contains("method") || !message["method"].is_string()) {
    // A response to a request of ours (the server sends none) needs no answer.
    if (message.is_object() && has_id &&
        (message.contains("result") || message.contains("error"))) {
      return;
    }
    send(error_response(id, kInvalidRequest,
                        "[devcheck lsp] not a JSON-RPC request: expected an object with a "
                        "\"method\" string"));
    return;
  }
  const std::string method = message["method"].get<std::string>();
  const nlohmann::json params =
      message.contains("params") ? message["params"] : nlohmann::json::object();
  // What the buffers still wait for (the debounce) is published before
  // shutdown's answer: no text a client sent goes without its diagnostics.
  if (method == "shutdown") lint_due(/*all=*/true);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!initialized_ && method != "initialize" && method != "exit") {
      if (has_id) {
        send(error_response(id, kServerNotInitialized,
                            "[devcheck lsp] " + method + " before initialize"));
      }
      return;
    }
    if (shut_down_ && method != "exit" && has_id) {
      send(error_response(id, kInvalidRequest, "[devcheck lsp] " + method + " after shutdown"));
      return;
    }
  }
  bool is_error = false;
  nlohmann::json result;
  try {
    result = dispatch(method, params, is_error);
  } catch (const std::exception& e) {
    const std::string why = "[devcheck lsp] " + method + ": " + e.what();
    if (has_id) {
      send(error_response(id, kInvalidParams, why));
    } else {
      send({{"jsonrpc", "2.0"},
            {"method", "window/logMessage"},
            {"params", {{"type", 1}, {"message", why}}}});
    }
    return;
  }
  if (!has_id) return;
  if (is_error) {
    send(error_response(id, kMethodNotFound, "[devcheck lsp] no method " + method));
  } else {
    send({{"jsonrpc", "2.0"}, {"id", id}, {"result", result}});
  }
}

nlohmann::json Server::dispatch(const std::string& method, const nlohmann::json& params,
                                bool& is_error) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (method == "initialize") {
    initialized_ = true;
    if (params.is_object() && params.contains("initializationOptions")) {
      lock.unlock();
      did_change_configuration({{"settings", params["initializationOptions"]}});
    }
    return {{"capabilities",
             {{"textDocumentSync",
               {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
              {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}}}},
            {"serverInfo", {{"name", "devcheck"}, {"version", DEVCHECK_VERSION}}}};
  }
  if (method == "initialized" || method.rfind("$/", 0) == 0) return nullptr;
  if (method == "shutdown") {
    shut_down_ = true;
    return nullptr;
  }
  if (method == "exit") {
    exited_ = true;
    work_.notify_all();
    return nullptr;
  }
  if (method == "textDocument/didOpen") {
    const nlohmann::json& doc = member(params, "textDocument", "textDocument");
    const std::string uri = string_member(doc, "uri", "textDocument.uri");
    Buffer& b = buffers_[uri];
    b.doc = Document(uri, string_member(doc, "text", "textDocument.text"),
                     int_member(doc, "version", 0));
    b.linted_version = -1;
    schedule(b, true);
    return nullptr;
  }
  if (method == "textDocument/didChange") {
    const nlohmann::json& doc = member(params, "textDocument", "textDocument");
    const std::string uri = string_member(doc, "uri", "textDocument.uri");
    const auto found = buffers_.find(uri);
    if (found == buffers_.end()) throw BadParams("no open document " + uri);
    Buffer& b = found->second;
    const nlohmann::json& changes = member(params, "contentChanges", "contentChanges");
    if (!changes.is_array()) throw BadParams("contentChanges is not a list");
    for (const nlohmann::json& change : changes) {
      std::string text = string_member(change, "text", "contentChanges[].text");
      if (change.contains("range")) {
        const nlohmann::json& range = change["range"];
        b.doc.replace(position_of(member(range, "start", "range.start")),
                      position_of(member(range, "end", "range.end")), text);
      } else {
        b.doc.set_text(std::move(text));
      }
    }
    b.doc.set_version(int_member(doc, "version", b.doc.version() + 1));
    schedule(b, false);
    return nullptr;
  }
  if (method == "textDocument/didSave") {
    const std::string uri =
        string_member(member(params, "textDocument", "textDocument"), "uri", "textDocument.uri");
    if (lint::detail::is_notebook(uri)) return nullptr;
    if (uri.size() >= 14 && uri.compare(uri.size() - 14, 14, "pyproject.toml") == 0) {
      // The configuration changed: read it again for every buffer.
      configs_ = std::make_shared<lint::detail::ConfigFinder>();
      for (auto& entry : buffers_) schedule(entry.second, true);
      return nullptr;
    }
    const auto found = buffers_.find(uri);
    if (found != buffers_.end()) {
      if (params.contains("text") && params["text"].is_string()) {
        found->second.doc.set_text(params["text"].get<std::string>());
      }
      schedule(found->second, true);
    }
    return nullptr;
  }
  if (method == "textDocument/didClose") {
    const std::string uri =
        string_member(member(params, "textDocument", "textDocument"), "uri", "textDocument.uri");
    buffers_.erase(uri);
    lock.unlock();
    send({{"jsonrpc", "2.0"},
          {"method", "textDocument/publishDiagnostics"},
          {"params", {{"uri", uri}, {"diagnostics", nlohmann::json::array()}}}});
    return nullptr;
  }
  if (method == "workspace/didChangeConfiguration") {
    lock.unlock();
    did_change_configuration(params);
    return nullptr;
  }
  if (method == "textDocument/codeAction") {
    lock.unlock();
    return code_action(params);
  }
  is_error = true;
  return nullptr;
}

void Server::did_change_configuration(const nlohmann::json& params) {
  const nlohmann::json& all = member(params, "settings", "settings");
  // {"devcheck": {...}} as editors send a section, or the section itself.
  const nlohmann::json& s = all.is_object() && all.contains("devcheck") ? all["devcheck"] : all;
  const std::lock_guard<std::mutex> lock(mutex_);
  settings_ = {};
  if (s.is_object()) {
    if (s.contains("select")) settings_.select = rule_list(s["select"]);
    if (s.contains("ignore")) settings_.ignore = rule_list(s["ignore"]);
    if (s.contains("debounce_ms") && s["debounce_ms"].is_number_integer()) {
      options_.debounce = std::chrono::milliseconds(std::max(0, s["debounce_ms"].get<int>()));
    }
  }
  for (auto& entry : buffers_) schedule(entry.second, true);
}

void Server::schedule(Buffer& buffer, bool now) {
  buffer.due = Clock::now() + (now ? std::chrono::milliseconds(0) : options_.debounce);
  work_.notify_all();
}

std::vector<lint::Finding> Server::lint(const Document& doc) {
  std::shared_ptr<lint::detail::ConfigFinder> configs;
  Settings settings;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    configs = configs_;
    settings = settings_;
  }
  const std::string& path = doc.path();
  const lint::detail::Config* config = path.empty() ? nullptr : configs->find(path);
  if (config != nullptr && lint::detail::excluded(*config, path)) return {};
  std::vector<std::string> select = settings.select;
  std::vector<std::string> ignore = settings.ignore;
  if (config != nullptr) {
    if (select.empty()) select = config->select;
    const std::vector<std::string> more = lint::detail::ignored_rules(*config, path);
    ignore.insert(ignore.end(), more.begin(), more.end());
  }
  const std::string name = path.empty() ? doc.uri() : path;
  std::vector<lint::Finding> findings = lint::detail::check_file(doc.text(), name, select, ignore);
  if (lint::detail::is_notebook(name)) {
    // The buffer is the notebook's JSON: show each finding where it sits in it.
    for (lint::Finding& f : findings) {
      f.line = f.file_line;
      f.column = f.file_column;
      f.end_line = f.line;
      f.end_column = f.column;
    }
  }
  return findings;
}

int Server::lint_due(bool all) {
  std::vector<Document> docs;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const Clock::time_point now = Clock::now();
    for (auto& entry : buffers_) {
      Buffer& b = entry.second;
      if (b.due && (all || *b.due <= now)) {
        docs.push_back(b.doc);
        b.due.reset();
      }
    }
  }
  for (const Document& doc : docs) {
    std::vector<lint::Finding> findings = lint(doc);
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const lint::Finding& f : findings) diagnostics.push_back(diagnostic(f, doc));
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto found = buffers_.find(doc.uri());
      // Closed or changed since: a newer lint is due.
      if (found == buffers_.end() || found->second.doc.version() != doc.version() ||
          found->second.doc.text() != doc.text()) {
        continue;
      }
      found->second.findings = std::move(findings);
      found->second.linted_version = doc.version();
    }
    send({{"jsonrpc", "2.0"},
          {"method", "textDocument/publishDiagnostics"},
          {"params",
           {{"uri", doc.uri()}, {"version", doc.version()}, {"diagnostics", diagnostics}}}});
  }
  return static_cast<int>(docs.size());
}

nlohmann::json Server::code_action(const nlohmann::json& params) {
  const std::string uri =
      string_member(member(params, "textDocument", "textDocument"), "uri", "textDocument.uri");
  const nlohmann::json& range = member(params, "range", "range");
  const Position start = position_of(member(range, "start", "range.start"));
  const Position end = position_of(member(range, "end", "range.end"));
  Document doc;
  std::vector<lint::Finding> findings;
  bool fresh = false;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = buffers_.find(uri);
    if (found == buffers_.end()) return nlohmann::json::array();
    doc = found->second.doc;
    fresh = found->second.linted_version == doc.version() && !found->second.due;
    if (fresh) findings = found->second.findings;
  }
  // Edits must be made against the text the client has now.
  if (!fresh) findings = lint(doc);
  if (lint::detail::is_notebook(doc.uri())) return nlohmann::json::array();
  return code_actions(findings, doc, start.line, end.line);
}

std::optional<Server::Clock::time_point> Server::next_due() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  std::optional<Clock::time_point> next;
  for (const auto& entry : buffers_) {
    if (entry.second.due && (!next || *entry.second.due < *next)) next = entry.second.due;
  }
  return next;
}

bool Server::wait_for_work() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopped_ && !exited_) {
    std::optional<Clock::time_point> next;
    for (const auto& entry : buffers_) {
      if (entry.second.due && (!next || *entry.second.due < *next)) next = entry.second.due;
    }
    if (next && *next <= Clock::now()) return true;
    if (next) {
      work_.wait_until(lock, *next);
    } else {
      work_.wait(lock);
    }
  }
  return false;
}

bool Server::exited() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return exited_;
}

int Server::exit_status() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return shut_down_ ? 0 : 1;
}

void Server::stop() {
  const std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
  work_.notify_all();
}

namespace {

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client is gone; the reader sees the end of input
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

int serve(int in, int out, ServerOptions options) {
  Server server(options, [out](const nlohmann::json& message) {
    write_all(out, frame(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  });
  std::thread linter([&server] {
    while (server.wait_for_work()) server.lint_due();
  });
  FrameReader reader;
  std::string chunk(1 << 16, '\0');
  bool done = false;
  while (!done) {
    const ssize_t n = ::read(in, chunk.data(), chunk.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reader.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)));
    while (std::optional<Frame> f = reader.next()) {
      if (!f->error.empty()) {
        server.framing_error(f->error);
      } else {
        server.handle(f->body);
      }
      if (server.exited()) {
        done = true;
        break;
      }
    }
  }
  server.stop();
  linter.join();
  return server.exited() ? server.exit_status() : 1;
}

}  // namespace devcheck::lsp
