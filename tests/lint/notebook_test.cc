// Notebooks in devcheck lint (src/lint/notebook.cc): cells as one program,
// magics left out, findings in cells, fixes that keep every other byte.
#include "lint/notebook.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "devcheck/lint.h"
#include "lint/files.h"
#include "lint_testing_fs.h"

namespace devcheck::lint {
namespace {

using testing::ScratchDir;

// A notebook as Jupyter writes it (indent 1, each source a list of lines),
// with an output and metadata that a fix must keep. Cells are code cells
// unless they start with "# md".
std::string notebook(const std::vector<std::string>& cells) {
  std::string out = "{\n \"cells\": [\n";
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const bool md = cells[c].rfind("# md", 0) == 0;
    out += "  {\n   \"cell_type\": \"" + std::string(md ? "markdown" : "code") + "\",\n";
    if (!md) out += "   \"execution_count\": " + std::to_string(c + 1) + ",\n";
    out += "   \"metadata\": {\"tags\": [\"x\"]},\n";
    if (!md) {
      out +=
          "   \"outputs\": [{\"name\": \"stdout\", \"output_type\": \"stream\", \"text\": "
          "[\"ok\\n\"]}],\n";
    }
    out += "   \"source\": [";
    std::size_t begin = 0;
    bool first = true;
    while (begin < cells[c].size()) {
      auto nl = cells[c].find('\n', begin);
      const std::size_t end = nl == std::string::npos ? cells[c].size() : nl + 1;
      out += first ? "\n" : ",\n";
      out += "    \"" + detail::json_escape(cells[c].substr(begin, end - begin)) + "\"";
      first = false;
      begin = end;
    }
    out += "\n   ]\n  }";
    out += c + 1 < cells.size() ? ",\n" : "\n";
  }
  out +=
      " ],\n \"metadata\": {\"kernelspec\": {\"name\": \"python3\"}},\n \"nbformat\": 4,\n"
      " \"nbformat_minor\": 5\n}\n";
  return out;
}

std::vector<Finding> lint_notebook(const std::string& json) {
  return detail::check_notebook(json, "nb.ipynb", {}, {});
}

std::vector<std::string> where(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) {
    out.push_back("cell " + std::to_string(f.cell) + ":" + std::to_string(f.line) + ":" +
                  std::to_string(f.column) + " " + f.rule);
  }
  return out;
}

const std::vector<std::string> kStray = {
    "import torch\n",
    "# md\nSome words.",
    "x = torch.randn(4, device=\"cuda\")\n",
    "h = torch.zeros(4)\ny = x + h\n",
};

TEST(Notebook, CellsAreOneProgramAndFindingsNameTheirCell) {
  const std::vector<Finding> found = lint_notebook(notebook(kStray));
  ASSERT_EQ(where(found), std::vector<std::string>{"cell 4:1:5 DC101"});
  // The line the message names is the program's line 5: cell 4's line 2.
  EXPECT_NE(found[0].message.find("cell 4, line 2 (in the module's code) uses it"),
            std::string::npos)
      << found[0].message;
}

TEST(Notebook, MagicsAndShellLinesAreLeftOut) {
  const std::string json = notebook({
      "%matplotlib inline\nimport torch\n!pip install torch\n",
      "%%bash\nthis is not python at all\n",
      "%%devcheck\nq = torch.zeros(2) + torch.ones(2, device='cuda')\n",
      "files = !ls\nhelp_me = %env\ntorch.zeros?\nfor f in files:\n    !echo {f}\n",
      "x = torch.randn(4, device='cuda') + torch.zeros(4)\n",
  });
  // %%devcheck's body is Python: linted.
  EXPECT_EQ(where(lint_notebook(json)),
            (std::vector<std::string>{"cell 3:2:5 DC101", "cell 5:1:37 DC101"}));
}

TEST(Notebook, ShellAndMagicLinesGoOnAfterABackslash) {
  // As Colab notebooks install packages (diffusers' sd3_dreambooth_lora_16gb
  // notebook): the lines after `\` belong to the shell command.
  const std::string json = notebook({
      "!pip install -q -U \\\n    transformers \\\n    accelerate\nimport torch\n",
      "%env A=1 \\\n  B=2\nif True:\n    !echo a \\\n        b\n    y = torch.zeros(4)\n",
      "x = torch.randn(4, device='cuda') + y\n",
  });
  EXPECT_EQ(where(lint_notebook(json)), (std::vector<std::string>{"cell 2:6:9 DC101"}));
  // A line of Python ending in a backslash is not a magic's: still checked.
  EXPECT_EQ(where(lint_notebook(notebook({"import torch\nx = torch.zeros(4) + \\\n"
                                          "    torch.ones(4, device='cuda')\n"}))),
            (std::vector<std::string>{"cell 1:2:5 DC101"}));
}

TEST(Notebook, SyntaxErrorIsDc100InItsCell) {
  const std::vector<Finding> found =
      lint_notebook(notebook({"import torch\n", "x = 1\ndef f(:\n    pass\n", "z = 3\n"}));
  ASSERT_FALSE(found.empty());
  EXPECT_EQ(found[0].rule, "DC100");
  EXPECT_EQ(found[0].cell, 2);
  EXPECT_EQ(found[0].line, 2);
}

TEST(Notebook, TextThatIsNotJsonIsOneDc100AtTheBadByte) {
  const std::vector<Finding> found = lint_notebook("{\n \"cells\": [\n  {,\n ]\n}\n");
  ASSERT_EQ(found.size(), 1U);
  EXPECT_EQ(found[0].rule, "DC100");
  EXPECT_EQ(found[0].line, 3);
  EXPECT_EQ(found[0].column, 4);
  EXPECT_EQ(found[0].cell, 0);
  EXPECT_NE(found[0].message.find("the notebook is not valid JSON"), std::string::npos);
  const std::vector<Finding> other = lint_notebook("{\"worksheets\": []}");
  ASSERT_EQ(other.size(), 1U);
  EXPECT_EQ(other[0].message,
            "not a Jupyter notebook (nbformat 4): the JSON has no \"cells\" list");
}

TEST(Notebook, ReportsNameTheCellInTextJsonAndSarif) {
  LintReport report;
  for (Finding& f : lint_notebook(notebook(kStray))) report.add(std::move(f));
  report.add_file();
  report.finish();
  EXPECT_EQ(report.to_text().substr(0, 30), "nb.ipynb:cell 4:1:5: DC101 tor");
  const auto json = nlohmann::json::parse(report.to_json());
  EXPECT_EQ(json[0]["cell"], 4);
  EXPECT_EQ(json[0]["line"], 1);
  const auto sarif = nlohmann::json::parse(report.to_sarif());
  const auto& result = sarif["runs"][0]["results"][0];
  EXPECT_EQ(result["properties"]["cell"], 4);
  EXPECT_EQ(result["properties"]["cellLine"], 1);
  // The region is the notebook file's own line and column: cell 4's torch.zeros.
  const std::string text = notebook(kStray);
  const int line = result["locations"][0]["physicalLocation"]["region"]["startLine"];
  const int column = result["locations"][0]["physicalLocation"]["region"]["startColumn"];
  std::size_t at = 0;
  for (int l = 1; l < line; ++l) at = text.find('\n', at) + 1;
  EXPECT_EQ(text.substr(at + column - 1, 14), "torch.zeros(4)");
}

TEST(Notebook, FixEditsTheSourceStringsAndKeepsEveryOtherByte) {
  ScratchDir dir;
  const std::string before = notebook({
      "import torch\n",
      "# md\nnotes",
      "s = \"caf\xc3\xa9 \\\"q\\\"\"; scaler = torch.cuda.amp.GradScaler()\nprint(s)\n",
  });
  // json_escape writes é as UTF-8 and \" as escapes: put a \u escape in the
  // file itself, as some writers do.
  std::string file_text = before;
  const auto e = file_text.find("caf\xc3\xa9");
  ASSERT_NE(e, std::string::npos);
  file_text.replace(e + 3, 2, "\\u00e9");
  const std::string path = dir.write("nb.ipynb", file_text);
  LintOptions options;
  options.jobs = 1;
  const FixResult fixed = fix_paths({path}, options, /*write=*/true);
  ASSERT_EQ(fixed.changed, std::vector<std::string>{path});
  const std::string after = ScratchDir::read(path);
  std::string expected = file_text;
  const std::string old_call = "torch.cuda.amp.GradScaler()";
  expected.replace(expected.find(old_call), old_call.size(), "torch.amp.GradScaler(\\\"cuda\\\")");
  EXPECT_EQ(after, expected);
  EXPECT_TRUE(fixed.remaining.findings().empty()) << fixed.remaining.to_text();
}

TEST(Notebook, FixOnALineAfterAMagicMapsToItsCell) {
  const std::string json = notebook(
      {"%load_ext devcheck\nimport torch\n", "!ls\nscaler = torch.cuda.amp.GradScaler()\n"});
  std::vector<Finding> found = detail::check_notebook(json, "nb.ipynb", {"DC109"}, {});
  ASSERT_EQ(where(found), std::vector<std::string>{"cell 2:2:10 DC109"});
  ASSERT_TRUE(found[0].fix.has_value());
  const std::string after = apply_fixes(json, found);
  EXPECT_NE(after.find("\"scaler = torch.amp.GradScaler(\\\"cuda\\\")\\n\""), std::string::npos)
      << after;
  EXPECT_FALSE(nlohmann::json::parse(after, nullptr, false).is_discarded()) << after;
}

TEST(Notebook, FolderWalkIncludesNotebooks) {
  ScratchDir dir;
  dir.write("a.py", "x = 1\n");
  dir.write("sub/nb.ipynb", notebook({"x = 1\n"}));
  dir.write("sub/notes.txt", "x\n");
  std::vector<std::string> errors;
  const std::vector<std::string> files = detail::collect_files({dir.path()}, true, errors);
  EXPECT_EQ(files, (std::vector<std::string>{dir.path() + "/a.py", dir.path() + "/sub/nb.ipynb"}));
  const LintReport report = lint_paths({dir.path()});
  EXPECT_EQ(report.files_checked(), 2U);
}

TEST(Notebook, OnlyIpynbPathsAreNotebooks) {
  EXPECT_TRUE(detail::is_notebook("a/b.ipynb"));
  EXPECT_FALSE(detail::is_notebook("a/b.py"));
  EXPECT_FALSE(detail::is_notebook("ipynb"));
}

}  // namespace
}  // namespace devcheck::lint
