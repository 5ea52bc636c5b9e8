// src/lint/fields.cc: the grammar's field ids by name.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "lint/grammar.h"
#include "lint/syntax.h"

namespace devcheck::lint::detail {
namespace {

TEST(LintFields, FieldsByIdMatchLibtreeSittersLookupByName) {
  const std::string text = "import torch\nx = torch.zeros(2, device=d)\n";
  const std::unique_ptr<TSTree, TreeDeleter> tree = Parser().parse(text);
  const TSNode root = ts_tree_root_node(tree.get());
  const TSNode assignment = ts_node_named_child(ts_node_named_child(root, 1), 0);
  ASSERT_TRUE(is(assignment, "assignment"));
  for (const char* name : {"left", "right", "type"}) {
    const TSNode by_name =
        ts_node_child_by_field_name(assignment, name, static_cast<uint32_t>(std::strlen(name)));
    EXPECT_TRUE(ts_node_eq(field(assignment, name), by_name)) << name;
  }
  EXPECT_NE(field_id("function"), 0);
  EXPECT_EQ(field_id("no_such_field"), 0);
  EXPECT_TRUE(ts_node_is_null(field(assignment, "no_such_field")));
}

// Every field of the grammar, by its own name, and names of none.
TEST(LintFields, EveryFieldOfTheGrammarIsFoundByItsName) {
  const TSLanguage* language = tree_sitter_python();
  const uint32_t count = ts_language_field_count(language);
  ASSERT_GT(count, 20U);
  for (uint32_t id = 1; id <= count; ++id) {
    const char* name = ts_language_field_name_for_id(language, static_cast<TSFieldId>(id));
    ASSERT_NE(name, nullptr);
    EXPECT_EQ(field_id(name), id) << name;
    EXPECT_EQ(field_id(std::string(name) + "x"), 0) << name;
  }
  EXPECT_EQ(field_id(""), 0);
  EXPECT_EQ(field_id("x"), 0);
  const FieldIds& ids = fields();
  EXPECT_EQ(ids.arguments, field_id("arguments"));
  EXPECT_EQ(ids.value, field_id("value"));
}

}  // namespace
}  // namespace devcheck::lint::detail
