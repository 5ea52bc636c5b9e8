#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lint/syntax.h"

namespace devcheck::lint::detail {
namespace {

// A snippet, its tree and the facts of its walk (the tree outlives the
// parser that made it).
struct Parsed {
  explicit Parsed(std::string code)
      : text(std::move(code)), tree(Parser().parse(text)), source(text, tree.get()) {}
  std::string text;
  std::unique_ptr<TSTree, TreeDeleter> tree;
  Source source;
};

// The called expression of each call the walk met, in its order.
std::vector<std::string> called_expressions(const Source& source) {
  std::vector<std::string> called;
  for (const Call& call : source.calls()) {
    called.emplace_back(source.text(field(call.node, "function")));
  }
  return called;
}

TEST(LintSyntax, ResolvesImportsAndAliases) {
  const std::string text =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch.cuda import amp as A\n"
      "from torch.utils.data import DataLoader\n"
      "from . import local\n";
  const Parsed parsed(text);
  const Source& source = parsed.source;
  EXPECT_EQ(source.imports().at("torch"), "torch");
  EXPECT_EQ(source.imports().at("nn"), "torch.nn");
  EXPECT_EQ(source.imports().at("A"), "torch.cuda.amp");
  EXPECT_EQ(source.imports().at("DataLoader"), "torch.utils.data.DataLoader");
  EXPECT_EQ(source.imports().count("local"), 0U);
}

TEST(LintSyntax, BuildsScopesAndClassifiesModules) {
  const std::string text =
      "import torch.nn as nn\n"
      "class Base(nn.Module):\n"
      "    pass\n"
      "class Net(Base):\n"
      "    def forward(self, x):\n"
      "        return x.to(x.device)\n"
      "class Other(object):\n"
      "    pass\n";
  const Parsed parsed(text);
  const Source& source = parsed.source;
  EXPECT_TRUE(source.classes().at("Base").is_module);
  EXPECT_TRUE(source.classes().at("Net").is_module);
  EXPECT_FALSE(source.classes().at("Other").is_module);
  const Scope& forward = source.scopes()[source.calls().back().scope];
  EXPECT_EQ(forward.name, "forward");
  EXPECT_TRUE(forward.uses_device);
  EXPECT_EQ(source.scopes()[forward.owner_class].name, "Net");
}

// torch.ao's fused QAT convolutions subclass nn.modules.conv._ConvNd: torch's
// layers are modules; its parameter classes and utilities are not.
TEST(LintSyntax, ClassifiesSubclassesOfTorchLayersAsModules) {
  const std::string text =
      "import torch.nn as nn\n"
      "import torch.ao.nn.quantized as nnq\n"
      "from torch.nn.utils.rnn import PackedSequence\n"
      "class Conv(nn.modules.conv._ConvNd):\n"
      "    pass\n"
      "class Lin(nn.Linear):\n"
      "    pass\n"
      "class QLin(nnq.Linear):\n"
      "    pass\n"
      "class Params(nn.ParameterList):\n"
      "    pass\n"
      "class Param(nn.Parameter):\n"
      "    pass\n"
      "class Packed(PackedSequence):\n"
      "    pass\n"
      "class Init(nn.init.something):\n"
      "    pass\n";
  const Parsed parsed(text);
  const auto& classes = parsed.source.classes();
  for (const char* name : {"Conv", "Lin", "QLin", "Params"}) {
    EXPECT_TRUE(classes.at(name).is_module) << name;
  }
  for (const char* name : {"Param", "Packed", "Init"}) {
    EXPECT_FALSE(classes.at(name).is_module) << name;
  }
}

TEST(LintSyntax, MentionsAnswersForTheWatchedWordsOnly) {
  const std::string text =
      "import torch\n"
      "loader = make(ds, pin_memory=True)\n"
      "ok = torch.cuda.is_available()\n";
  const Parsed parsed(text);
  const Source& source = parsed.source;
  EXPECT_TRUE(source.mentions("pin_memory"));    // a keyword's name
  EXPECT_TRUE(source.mentions("is_available"));  // an attribute
  EXPECT_FALSE(source.mentions("device_count"));
  try {
    static_cast<void>(source.mentions("loader"));
    FAIL() << "an unwatched word was answered";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("\"loader\" is not one of Source::kWatchedWords"),
              std::string::npos)
        << e.what();
  }
}

// The walk stops at each node's last child instead of asking the cursor for
// one more sibling: every call is still met, last children and the deepest
// last child of a chain of last children included.
TEST(LintSyntax, WalkMeetsEveryCallUpToTheLastChild) {
  const std::string text =
      "def f(x):\n"
      "    if x:\n"
      "        return g(h(x), k(m(x)))\n"
      "    while x:\n"
      "        x = [n(x) for x in p(x)]\n"
      "    q(f\"{r(x)}\")\n"
      "s(lambda: t())\n";
  const Parsed parsed(text);
  const Source& source = parsed.source;
  const std::vector<std::string> called = called_expressions(source);
  EXPECT_EQ(called, (std::vector<std::string>{"g", "h", "k", "m", "n", "p", "q", "r", "s", "t"}));
}

// Expressions without a parenthesis or '#' are not walked into; the words
// and comments the rules need from them are still there.
TEST(LintSyntax, UnwalkedExpressionsKeepTheirWordsAndComments) {
  const std::string text =
      "import torch\n"
      "check = torch.cuda.is_available\n"
      "flags = [my_pin_memory_flag, 1]\n"
      "table = [\n"
      "    1,  # devcheck: ignore[DC101]\n"
      "    torch.cuda.device_count,\n"
      "]\n";
  const Parsed parsed(text);
  const Source& source = parsed.source;
  EXPECT_TRUE(source.mentions("is_available"));  // in an attribute chain
  EXPECT_FALSE(source.mentions("pin_memory"));   // only inside a longer name
  EXPECT_TRUE(source.mentions("device_count"));  // in a list with a comment
  ASSERT_EQ(source.comments().size(), 1U);
  EXPECT_EQ(source.text(source.comments()[0]), "# devcheck: ignore[DC101]");
}

// Arguments and parameters without a parenthesis, '#' or `device` inside
// are not walked into either; with one of those they are.
TEST(LintSyntax, UnwalkedArgumentsKeepTheirWordsCommentsAndDevices) {
  const std::string text =
      "def f(x=g(), y: Optional[int] = None):\n"
      "    return x\n"
      "def h(x):\n"
      "    return k(x, 1, device=d)\n"
      "def m(x):\n"
      "    n(x, pin_memory, 'a')\n"
      "    p(x,  # devcheck: ignore\n"
      "      y)\n"
      "    q(x, (r(y)))\n";
  const Parsed parsed(text);
  const Source& source = parsed.source;
  const std::vector<std::string> called = called_expressions(source);
  // g in a parameter's default, r in parentheses among the arguments.
  EXPECT_EQ(called, (std::vector<std::string>{"g", "k", "n", "p", "q", "r"}));
  const std::vector<Scope>& scopes = source.scopes();
  ASSERT_EQ(scopes.size(), 4U);
  EXPECT_FALSE(scopes[1].uses_device);  // f
  EXPECT_TRUE(scopes[2].uses_device);   // h: device=d among k's arguments
  EXPECT_FALSE(scopes[3].uses_device);  // m
  EXPECT_TRUE(source.mentions("pin_memory"));
  ASSERT_EQ(source.comments().size(), 1U);
  EXPECT_EQ(source.text(source.comments()[0]), "# devcheck: ignore");
}

// A call whose only parenthesis is its own is not walked into; every call
// is met wherever its parenthesis is: in the called expression, in a tuple,
// in a keyword argument, in an index.
TEST(LintSyntax, CallsAreMetInCalleesTuplesKeywordsAndIndexes) {
  const std::string text =
      "a = f(x)(y)\n"
      "b = (1, g(2))\n"
      "c = k(key=m(3), other=pin_memory)\n"
      "d = n(p)[q(4)]\n"
      "e = r(s, device_count)\n";
  const Parsed parsed(text);
  const Source& source = parsed.source;
  const std::vector<std::string> called = called_expressions(source);
  EXPECT_EQ(called, (std::vector<std::string>{"f(x)", "f", "g", "k", "m", "n", "q", "r"}));
  EXPECT_TRUE(source.mentions("pin_memory"));    // beside a call, in a keyword argument
  EXPECT_TRUE(source.mentions("device_count"));  // in a call not walked into
  EXPECT_EQ(source.scopes()[0].assigns.size(), 5U);
}

TEST(LintSyntax, DottedNamesAreTheSameWrittenTightlyOrNot) {
  const std::string text =
      "import torch.nn.functional as F\n"
      "a = torch.nn.functional.relu\n"
      "b = (torch . nn\n"
      "     .functional.relu)\n"
      "c = make().relu\n"
      "d = F.relu\n";
  const Parsed parsed(text);
  const Source& source = parsed.source;
  std::vector<std::string> dotted;
  std::vector<std::string> qualified;
  for (const auto& [name, values] : source.scopes()[0].assigns) {
    if (name.size() != 1) continue;
    TSNode value = values.back();
    if (is(value, "parenthesized_expression")) value = ts_node_named_child(value, 0);
    dotted.push_back(name + "=" + source.dotted(value));
    qualified.push_back(name + "=" + source.qualify(value));
  }
  std::sort(dotted.begin(), dotted.end());
  std::sort(qualified.begin(), qualified.end());
  EXPECT_EQ(dotted, (std::vector<std::string>{"a=torch.nn.functional.relu",
                                              "b=torch.nn.functional.relu", "c=", "d=F.relu"}));
  EXPECT_EQ(qualified, (std::vector<std::string>{"a=", "b=", "c=", "d=torch.nn.functional.relu"}));
}

// The branches around each call, innermost first: `if` statements, `elif`
// clauses and conditional expressions (not a lambda), each with the one
// around it.
TEST(LintSyntax, RecordsTheBranchesAroundEachCall) {
  const Parsed parsed(
      "if a():\n"
      "    b()\n"
      "elif c:\n"
      "    d() if e else g()\n"
      "s(lambda: t())\n");
  const Source& source = parsed.source;
  auto around = [&](std::string_view name) {
    std::vector<std::string> out;
    for (const Call& call : source.calls()) {
      if (source.text(field(call.node, "function")) != name) continue;
      for (int b = call.branch; b >= 0; b = source.branches()[b].outer) {
        out.emplace_back(ts_node_type(source.branches()[b].node));
      }
    }
    return out;
  };
  using Types = std::vector<std::string>;
  EXPECT_EQ(around("a"), (Types{"if_statement"}));  // in its test: the rules tell
  EXPECT_EQ(around("b"), (Types{"if_statement"}));
  EXPECT_EQ(around("d"), (Types{"conditional_expression", "elif_clause", "if_statement"}));
  EXPECT_EQ(around("g"), (Types{"conditional_expression", "elif_clause", "if_statement"}));
  EXPECT_EQ(around("s"), Types{});
  EXPECT_EQ(around("t"), Types{});
  EXPECT_EQ(source.branches().size(), 3U);
}

// tree-sitter's error recovery is quadratic on some long invalid constructs
// (a test of twenty thousand names joined by commas takes seconds): a parse
// over the parser's time limit gives up, and the next parse starts afresh.
TEST(LintSyntax, AParseOverTheTimeLimitGivesUpAndTheNextStartsAfresh) {
  std::string slow = "if x";
  for (int i = 0; i < 20000; ++i) slow += ", x";
  slow += ":\n    d = 1\n";
  Parser parser(20'000);  // 20 ms
  EXPECT_EQ(parser.parse(slow), nullptr);
  const auto tree = parser.parse("x = 1\n");
  ASSERT_NE(tree, nullptr);
  EXPECT_FALSE(ts_node_has_error(ts_tree_root_node(tree.get())));
}

// A dotted name written with spaces is read part by part, in a loop: a chain
// of fifty thousand is no deeper on the stack than one of two.
TEST(LintSyntax, ReadsLongDottedNamesWrittenWithSpaces) {
  std::string chain = "torch";
  for (int i = 0; i < 50000; ++i) chain += " . cuda";
  const Parsed parsed("import torch\ny = " + chain + "\nz = torch . nn . Linear\n");
  const TSNode last = ts_node_named_child(parsed.source.root(), 2);
  EXPECT_EQ(parsed.source.dotted(field(ts_node_named_child(last, 0), "right")), "torch.nn.Linear");
  const TSNode deep = ts_node_named_child(parsed.source.root(), 1);
  const std::string name = parsed.source.dotted(field(ts_node_named_child(deep, 0), "right"));
  EXPECT_EQ(name.size(), 5 + 50000 * 5U);
}

}  // namespace
}  // namespace devcheck::lint::detail
