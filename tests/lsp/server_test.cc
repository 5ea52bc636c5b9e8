// The server (src/lsp/server.cc) in-process, message by message, and
// serve() over pipes.
#include "server.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "document.h"
#include "jsonrpc.h"
#include "lint_testing_fs.h"

namespace devcheck::lsp {
namespace {

using lint::testing::ScratchDir;

const char* const kStray =
    "import torch\n"
    "x = torch.randn(4, device='cuda')\n"
    "h = torch.zeros(4)\n"
    "y = x + h\n";

class Session {
 public:
  explicit Session(std::chrono::milliseconds debounce = std::chrono::milliseconds(0))
      : server_(ServerOptions{debounce}, [this](const nlohmann::json& m) { sent.push_back(m); }) {}

  void request(int id, const std::string& method, const nlohmann::json& params) {
    server_.handle(
        nlohmann::json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}
            .dump());
  }
  void notify(const std::string& method, const nlohmann::json& params) {
    server_.handle(
        nlohmann::json{{"jsonrpc", "2.0"}, {"method", method}, {"params", params}}.dump());
  }
  void initialize() { request(1, "initialize", {{"capabilities", nlohmann::json::object()}}); }
  void open(const std::string& uri, const std::string& text) {
    notify("textDocument/didOpen",
           {{"textDocument",
             {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}});
  }
  // The last publishDiagnostics sent, or null.
  nlohmann::json last_diagnostics() const {
    for (auto it = sent.rbegin(); it != sent.rend(); ++it) {
      if (it->value("method", "") == "textDocument/publishDiagnostics") return (*it)["params"];
    }
    return nullptr;
  }
  nlohmann::json response(int id) const {
    for (const auto& m : sent) {
      if (m.contains("id") && m["id"] == id) return m;
    }
    return nullptr;
  }
  Server& server() { return server_; }
  std::vector<nlohmann::json> sent;

 private:
  Server server_;
};

TEST(LspServer, InitializeAnnouncesSyncAndCodeActions) {
  Session s;
  s.initialize();
  const auto r = s.response(1);
  ASSERT_FALSE(r.is_null());
  EXPECT_EQ(r["result"]["capabilities"]["textDocumentSync"]["change"], 2);
  EXPECT_EQ(r["result"]["capabilities"]["textDocumentSync"]["openClose"], true);
  EXPECT_EQ(r["result"]["capabilities"]["codeActionProvider"]["codeActionKinds"][0], "quickfix");
  EXPECT_EQ(r["result"]["serverInfo"]["name"], "devcheck");
}

TEST(LspServer, PublishesDiagnosticsOfTheBufferNotTheDisk) {
  Session s;
  s.initialize();
  s.open("file:///nowhere/t.py", kStray);
  EXPECT_EQ(s.server().lint_due(), 1);
  const auto d = s.last_diagnostics();
  ASSERT_FALSE(d.is_null());
  EXPECT_EQ(d["uri"], "file:///nowhere/t.py");
  EXPECT_EQ(d["version"], 1);
  ASSERT_EQ(d["diagnostics"].size(), 1U);
  EXPECT_EQ(d["diagnostics"][0]["code"], "DC101");
  EXPECT_EQ(d["diagnostics"][0]["range"]["start"]["line"], 2);
}

TEST(LspServer, DebouncesChangesAndAppliesIncrementalEdits) {
  Session s(std::chrono::milliseconds(60000));
  s.initialize();
  s.open("file:///nowhere/t.py", kStray);
  s.server().lint_due();
  // Line 3 becomes `h = torch.zeros(4, device=x.device)`.
  s.notify("textDocument/didChange",
           {{"textDocument", {{"uri", "file:///nowhere/t.py"}, {"version", 2}}},
            {"contentChanges",
             {{{"range",
                {{"start", {{"line", 2}, {"character", 17}}},
                 {"end", {{"line", 2}, {"character", 17}}}}},
               {"text", ", device=x.device"}}}}});
  EXPECT_EQ(s.server().lint_due(), 0) << "linted before the debounce passed";
  EXPECT_TRUE(s.server().next_due().has_value());
  EXPECT_EQ(s.server().lint_due(/*all=*/true), 1);
  const auto d = s.last_diagnostics();
  EXPECT_EQ(d["version"], 2);
  EXPECT_TRUE(d["diagnostics"].empty()) << d.dump();
}

TEST(LspServer, CodeActionFixesTheBuffer) {
  Session s;
  s.initialize();
  s.open("file:///nowhere/amp.py", "import torch\nscaler = torch.cuda.amp.GradScaler()\n");
  s.server().lint_due();
  s.request(
      7, "textDocument/codeAction",
      {{"textDocument", {{"uri", "file:///nowhere/amp.py"}}},
       {"range",
        {{"start", {{"line", 1}, {"character", 0}}}, {"end", {{"line", 1}, {"character", 0}}}}},
       {"context", {{"diagnostics", nlohmann::json::array()}}}});
  const auto r = s.response(7);
  ASSERT_EQ(r["result"].size(), 2U) << r.dump();
  Document doc("file:///nowhere/amp.py", "import torch\nscaler = torch.cuda.amp.GradScaler()\n", 1);
  // The edits as a client applies them: from the last to the first.
  const auto& edits = r["result"][0]["edit"]["changes"]["file:///nowhere/amp.py"];
  ASSERT_FALSE(edits.empty());
  for (auto e = edits.rbegin(); e != edits.rend(); ++e) {
    const auto& edit = *e;
    doc.replace({edit["range"]["start"]["line"], edit["range"]["start"]["character"]},
                {edit["range"]["end"]["line"], edit["range"]["end"]["character"]},
                edit["newText"].get<std::string>());
  }
  EXPECT_EQ(doc.text(), "import torch\nscaler = torch.amp.GradScaler(\"cuda\")\n");
}

TEST(LspServer, MalformedMessagesGetErrorsAndTheServerGoesOn) {
  Session s;
  s.request(3, "textDocument/codeAction", nlohmann::json::object());
  EXPECT_EQ(s.response(3)["error"]["code"], -32002);
  s.initialize();
  s.server().handle("{not json");
  EXPECT_EQ(s.sent.back()["error"]["code"], -32700);
  EXPECT_TRUE(s.sent.back()["id"].is_null());
  s.server().handle("[1, 2]");
  EXPECT_EQ(s.sent.back()["error"]["code"], -32600);
  s.request(4, "textDocument/hover", nlohmann::json::object());
  EXPECT_EQ(s.response(4)["error"]["code"], -32601);
  EXPECT_EQ(s.response(4)["error"]["message"], "[devcheck lsp] no method textDocument/hover");
  s.request(5, "textDocument/codeAction", {{"range", 3}});
  EXPECT_EQ(s.response(5)["error"]["code"], -32602);
  EXPECT_EQ(s.response(5)["error"]["message"],
            "[devcheck lsp] textDocument/codeAction: params have no textDocument");
  s.notify("textDocument/didOpen", {{"textDocument", {{"uri", 5}}}});
  EXPECT_EQ(s.sent.back()["method"], "window/logMessage");
  EXPECT_EQ(s.sent.back()["params"]["message"],
            "[devcheck lsp] textDocument/didOpen: textDocument.uri is not a string");
  s.server().framing_error("the message header has no Content-Length");
  EXPECT_EQ(s.sent.back()["error"]["message"],
            "[devcheck lsp] the message header has no Content-Length");
  // Still serving.
  s.open("file:///nowhere/t.py", kStray);
  s.server().lint_due();
  EXPECT_EQ(s.last_diagnostics()["diagnostics"].size(), 1U);
}

TEST(LspServer, ParseFailureIsDc100AndTheRestStillWorks) {
  Session s;
  s.initialize();
  s.open("file:///nowhere/bad.py", "import torch\ndef f(:\n    pass\nx = torch.load('m.pt')\n");
  s.server().lint_due();
  const auto d = s.last_diagnostics()["diagnostics"];
  ASSERT_GE(d.size(), 1U);
  EXPECT_EQ(d[0]["code"], "DC100");
  EXPECT_EQ(d[0]["range"]["start"]["line"], 1);
}

TEST(LspServer, ClientSettingsAndPyprojectChooseTheRules) {
  ScratchDir dir;
  dir.write("pyproject.toml", "[tool.devcheck.lint]\nignore = [\"DC101\"]\n");
  const std::string file = dir.write("t.py", kStray);
  const std::string amp = "import torch\nscaler = torch.cuda.amp.GradScaler()\n";
  Session s;
  s.initialize();
  s.open(uri_of_path(file), std::string(kStray) + "state = torch.load('m.pt')\n");
  s.server().lint_due();
  auto d = s.last_diagnostics()["diagnostics"];
  ASSERT_EQ(d.size(), 1U) << d.dump();
  EXPECT_EQ(d[0]["code"], "DC105");  // DC101 ignored by pyproject.toml
  s.notify("workspace/didChangeConfiguration",
           {{"settings", {{"devcheck", {{"ignore", {"DC105"}}}}}}});
  s.server().lint_due();
  EXPECT_TRUE(s.last_diagnostics()["diagnostics"].empty());
  s.notify("workspace/didChangeConfiguration",
           {{"settings", {{"devcheck", {{"select", "DC101,DC105"}}}}}});
  s.server().lint_due();
  EXPECT_EQ(s.last_diagnostics()["diagnostics"].size(), 1U);
}

TEST(LspServer, ShutdownThenExitEndsWithStatusZero) {
  Session s;
  s.initialize();
  s.request(2, "shutdown", nullptr);
  EXPECT_TRUE(s.response(2).contains("result"));
  s.request(3, "textDocument/codeAction", nlohmann::json::object());
  EXPECT_EQ(s.response(3)["error"]["code"], -32600);
  EXPECT_FALSE(s.server().exited());
  s.notify("exit", nullptr);
  EXPECT_TRUE(s.server().exited());
  EXPECT_EQ(s.server().exit_status(), 0);
}

TEST(LspServer, ServesOverPipesUntilExit) {
  int to_server[2];
  int from_server[2];
  ASSERT_EQ(::pipe(to_server), 0);
  ASSERT_EQ(::pipe(from_server), 0);
  int status = -1;
  std::thread server([&] {
    status = serve(to_server[0], from_server[1], {});
    ::close(from_server[1]);
  });
  const std::string input =
      frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})") +
      "Content-Length: x\r\n\r\n" +
      frame(nlohmann::json{
          {"jsonrpc", "2.0"},
          {"method", "textDocument/didOpen"},
          {"params",
           {{"textDocument", {{"uri", "file:///nowhere/t.py"}, {"version", 1}, {"text", kStray}}}}}}
                .dump());
  ASSERT_EQ(::write(to_server[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  FrameReader reader;
  std::vector<nlohmann::json> got;
  char buf[4096];
  bool diagnostics = false;
  while (!diagnostics) {
    const ssize_t n = ::read(from_server[0], buf, sizeof buf);
    ASSERT_GT(n, 0);
    reader.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    while (auto f = reader.next()) {
      got.push_back(nlohmann::json::parse(f->body));
      diagnostics =
          diagnostics || got.back().value("method", "") == "textDocument/publishDiagnostics";
    }
  }
  const std::string end = frame(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") +
                          frame(R"({"jsonrpc":"2.0","method":"exit"})");
  ASSERT_EQ(::write(to_server[1], end.data(), end.size()), static_cast<ssize_t>(end.size()));
  server.join();
  ::close(to_server[0]);
  ::close(to_server[1]);
  ::close(from_server[0]);
  EXPECT_EQ(status, 0);
  ASSERT_GE(got.size(), 3U);
  EXPECT_EQ(got[0]["id"], 1);
  EXPECT_EQ(got[1]["error"]["message"], "[devcheck lsp] Content-Length is not a number: 'x'");
  EXPECT_EQ(got.back()["params"]["diagnostics"][0]["code"], "DC101");
}

}  // namespace
}  // namespace devcheck::lsp
