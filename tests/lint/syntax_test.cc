#include <gtest/gtest.h>

#include "lint/syntax.h"

namespace devcheck::lint::detail {
namespace {

TEST(LintSyntax, ResolvesImportsAndAliases) {
  const std::string text =
      "import torch\n"
      "import torch.nn as nn\n"
      "from torch.cuda import amp as A\n"
      "from torch.utils.data import DataLoader\n"
      "from . import local\n";
  Parser parser;
  const auto tree = parser.parse(text);
  const Source source(text, tree.get());
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
  Parser parser;
  const auto tree = parser.parse(text);
  const Source source(text, tree.get());
  EXPECT_TRUE(source.classes().at("Base").is_module);
  EXPECT_TRUE(source.classes().at("Net").is_module);
  EXPECT_FALSE(source.classes().at("Other").is_module);
  const Scope& forward = source.scopes()[source.calls().back().scope];
  EXPECT_EQ(forward.name, "forward");
  EXPECT_TRUE(forward.uses_device);
  EXPECT_EQ(source.scopes()[forward.owner_class].name, "Net");
}

}  // namespace
}  // namespace devcheck::lint::detail
