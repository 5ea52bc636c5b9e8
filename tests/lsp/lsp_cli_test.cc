// `devcheck lsp` as a process (tools/devcheck/lsp.cc): an LSP exchange on
// its stdin and stdout, and its exit statuses.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lint_testing_fs.h"
#include "lsp/jsonrpc.h"

namespace devcheck::lsp {
namespace {

struct LspRun {
  int status = -1;
  std::string out;
};

// Runs `devcheck lsp ARGS` with `input` on its stdin.
LspRun lsp(const std::string& args, const std::string& input) {
  lint::testing::ScratchDir dir;
  const std::string in = dir.write("in", input);
  const std::string command = std::string(DEVCHECK_CLI) + " lsp " + args + " < " + in + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  LspRun run;
  if (pipe == nullptr) return run;
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    run.out.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::vector<nlohmann::json> messages(const std::string& out) {
  FrameReader reader;
  reader.feed(out);
  std::vector<nlohmann::json> got;
  while (auto f = reader.next()) got.push_back(nlohmann::json::parse(f->body));
  return got;
}

TEST(LspCli, AnswersInitializePublishesAndExitsZeroAfterShutdown) {
  const std::string text = "import torch\nstate = torch.load('m.pt')\n";
  const std::string input =
      frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})") +
      frame(nlohmann::json{
          {"jsonrpc", "2.0"},
          {"method", "textDocument/didOpen"},
          {"params",
           {{"textDocument", {{"uri", "file:///nowhere/t.py"}, {"version", 1}, {"text", text}}}}}}
                .dump()) +
      frame(R"({"jsonrpc":"2.0","id":2,"method":"shutdown"})") +
      frame(R"({"jsonrpc":"2.0","method":"exit"})");
  const LspRun run = lsp("", input);
  EXPECT_EQ(run.status, 0) << run.out;
  const auto got = messages(run.out);
  ASSERT_GE(got.size(), 2U) << run.out;
  EXPECT_EQ(got[0]["result"]["serverInfo"]["name"], "devcheck");
  bool published = false;
  for (const auto& m : got) {
    if (m.value("method", "") != "textDocument/publishDiagnostics") continue;
    published = true;
    EXPECT_EQ(m["params"]["diagnostics"][0]["code"], "DC105");
    EXPECT_EQ(m["params"]["diagnostics"][0]["range"]["start"]["line"], 1);
  }
  EXPECT_TRUE(published) << run.out;
}

TEST(LspCli, EndOfInputWithoutShutdownExitsOne) {
  const LspRun run =
      lsp("", frame(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}})"));
  EXPECT_EQ(run.status, 1) << run.out;
}

TEST(LspCli, BadOptionExitsTwo) {
  const LspRun run = lsp("--debounce-ms 20000", "");
  EXPECT_EQ(run.status, 2) << run.out;
  EXPECT_NE(run.out.find("--debounce-ms"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace devcheck::lsp
