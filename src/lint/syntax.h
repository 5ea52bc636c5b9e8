#pragma once
// The parsed file the rules read: a tree-sitter tree plus what one walk over
// it learns (imports, scopes and their assignments, calls). Internal.

#include <tree_sitter/api.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace devcheck::lint::detail {

struct TreeDeleter {
  void operator()(TSTree* tree) const { ts_tree_delete(tree); }
};
struct ParserDeleter {
  void operator()(TSParser* parser) const { ts_parser_delete(parser); }
};

// A Python parser; one per thread (TSParser is not thread-safe).
class Parser {
 public:
  // Parsing is linear in the text for valid code (a megabyte in a tenth of a
  // second), but tree-sitter's error recovery is quadratic on some long
  // invalid constructs (`if x, x, ..., x:` with twenty thousand names takes
  // seconds, a hundred thousand minutes): a parse that runs longer than
  // this gives up.
  static constexpr std::uint64_t kTimeoutMicros = 10'000'000;
  explicit Parser(std::uint64_t timeout_micros = kTimeoutMicros);
  // The tree, or null where the parse gave up (the parser is then ready for
  // the next text).
  std::unique_ptr<TSTree, TreeDeleter> parse(std::string_view source);

 private:
  std::unique_ptr<TSParser, ParserDeleter> parser_;
};

inline bool is(TSNode node, const char* type) {
  return !ts_node_is_null(node) && std::strcmp(ts_node_type(node), type) == 0;
}
// The grammar's id of a field name (0: no such field). Rules ask for fields
// by name on most nodes they read; libtree-sitter's own lookup compares the
// name with every field's in turn, this one hashes it once.
TSFieldId field_id(std::string_view name);
inline TSNode field(TSNode node, const char* name) {
  return ts_node_child_by_field_id(node, field_id(name));
}
inline TSNode field(TSNode node, TSFieldId id) { return ts_node_child_by_field_id(node, id); }
// The ids of the fields hot code reads, looked up once.
struct FieldIds {
  TSFieldId alias, alternative, argument, arguments, attribute, body, condition, consequence,
      function, left, name, object, parameters, right, subscript, type, value;
};
const FieldIds& fields();

enum class ScopeKind { kModule, kClass, kFunction };

struct Scope {
  ScopeKind kind = ScopeKind::kModule;
  TSNode node{};
  std::string name;
  int parent = -1;
  // The class a function is a method of, or -1.
  int owner_class = -1;
  // Names (and `self.x`) -> the right-hand sides assigned to them, in order.
  std::unordered_map<std::string, std::vector<TSNode>> assigns;
  // The function puts tensors on a device by name: `device=X` (X not
  // "cpu"/"meta") or `.to(X)` with X a `*device*` name or `t.device`; and
  // the start byte of the first such use.
  bool uses_device = false;
  uint32_t first_device_use = UINT32_MAX;
};

struct Call {
  TSNode node{};
  int scope = 0;
  // The called name resolved through the imports (`torch.cuda.amp.autocast`),
  // or empty when its root is not an imported name.
  std::string qualified;
  // For `obj.method(...)`: the method's name and `obj`.
  std::string_view method;  // in the source's text
  TSNode object{};
  // The call is the object of `.to(...)` or `.cuda(...)`: moved right away.
  bool moved = false;
  // The start byte of the innermost loop around the call in its function
  // (kNoLoop: none), and whether an `if`, conditional or lambda lies between.
  static constexpr uint32_t kNoLoop = UINT32_MAX;
  uint32_t loop = kNoLoop;
  bool conditional = false;
  // The innermost `if` statement, `elif` clause or conditional expression
  // around the call (an index into Source::branches()), or -1.
  int branch = -1;
};

// An `if` statement, `elif` clause or conditional expression, and the one
// around it (an index into Source::branches(), or -1).
struct Branch {
  TSNode node{};
  int outer = -1;
};

struct ClassInfo {
  int scope = -1;
  bool is_module = false;   // an nn.Module subclass (directly or through this file)
  bool is_dataset = false;  // a torch.utils.data.Dataset subclass
  // A base imported from a module outside torch and the standard library
  // (diffusers' ModelMixin): the class may be an nn.Module.
  bool foreign_base = false;
};

// One parsed file and the facts every rule shares.
class Source {
 public:
  Source(std::string_view text, TSTree* tree);

  std::string_view text() const { return text_; }
  std::string_view text(TSNode node) const {
    return text_.substr(ts_node_start_byte(node),
                        ts_node_end_byte(node) - ts_node_start_byte(node));
  }
  TSNode root() const { return ts_tree_root_node(tree_); }

  // `a.b.c` as written, or empty when `node` is not a dotted name.
  std::string dotted(TSNode node) const;
  // The dotted name with its root resolved through the imports, or empty.
  std::string qualify(TSNode node) const;

  // The keyword argument `name=` of a call, or a null node.
  TSNode keyword(TSNode call, std::string_view name) const;
  // The positional arguments of a call.
  std::vector<TSNode> positional(TSNode call) const;
  // Whether a call passes `*args` or `**kwargs` (so it cannot be judged).
  bool has_splat(TSNode call) const;

  // The scope innermost around `node`.
  int scope_of(TSNode node) const;
  // The nearest function scope at or above `scope`, or -1.
  int function_of(int scope) const;

  const std::vector<Scope>& scopes() const { return scopes_; }
  const std::vector<Call>& calls() const { return calls_; }
  // The `if` statements, `elif` clauses and conditional expressions, in
  // order of their start (Call::branch, Branch::outer lead out from a call):
  // the branches around a node without ts_node_parent(), which descends
  // from the root at each call.
  const std::vector<Branch>& branches() const { return branches_; }
  // The Call the walk recorded for a call node (calls are in order of their
  // start), or null.
  const Call* call_at(TSNode node) const;
  const std::unordered_map<std::string, ClassInfo>& classes() const { return classes_; }
  const std::unordered_map<std::string, std::string>& imports() const { return imports_; }
  // Bare-call expression statements, in order.
  const std::vector<TSNode>& call_statements() const { return call_statements_; }
  // Comment nodes, in order.
  const std::vector<TSNode>& comments() const { return comments_; }
  // Whether the loop starting at `start_byte` calls backward() in its own body
  // (a training loop's step; not a loop around that one).
  bool is_training_loop(uint32_t start_byte) const {
    return training_loops_.count(start_byte) != 0;
  }
  // The names `mentions` answers for: the walk looks for these only (a set of
  // every identifier cost a hash and often an allocation per identifier).
  static constexpr std::string_view kWatchedWords[] = {"pin_memory", "is_available", "device_count",
                                                       "return_tensors"};
  // Whether any identifier or attribute spelled `word` appears; `word` must
  // be one of kWatchedWords (std::logic_error otherwise).
  bool mentions(std::string_view word) const;

  // The last value assigned to `name` visible from `scope` (that scope, then
  // its enclosing scopes), or a null node.
  TSNode value_of(const std::string& name, int scope) const;

 private:
  static constexpr int kMaxDepth = 1500;
  // Up to this many children a node's are walked by index (walk()).
  static constexpr uint32_t kChildrenByIndex = 12;
  void walk(TSNode node, int scope, int depth);
  void add_call(TSNode node, int scope);
  void note_device_use(int scope, TSNode node);
  // Whether nothing below `node` needs walking (its text after `from` opens
  // no parenthesis, it holds no comment or error); if so, notes its words.
  bool holds_nothing_to_walk(TSNode node, std::size_t from);
  void add_import(TSNode node);
  void add_assignment(TSNode node, int scope);
  void note_word(std::string_view word);
  void note_words_in(std::string_view code);
  void classify_classes();

  std::string_view text_;
  TSTree* tree_;
  std::vector<Scope> scopes_;
  std::vector<Call> calls_;
  std::vector<Branch> branches_;
  // The branches around the node being walked, innermost last.
  std::vector<int> open_branches_;
  std::vector<TSNode> call_statements_;
  std::vector<TSNode> comments_;
  std::unordered_map<std::string, std::string> imports_;
  std::unordered_map<std::string, ClassInfo> classes_;
  std::unordered_map<std::string, std::vector<std::string>> bases_;
  // Bit i: kWatchedWords[i] appears as an identifier (or as a whole word in
  // an expression the walk does not go into).
  uint32_t watched_ = 0;
  std::unordered_set<uint32_t> training_loops_;
  // The objects of the `.to(...)`/`.cuda(...)` calls around the node being
  // walked, as byte ranges: what lies inside them is moved right away.
  std::vector<std::pair<uint32_t, uint32_t>> moving_;
  // What encloses the node being walked: 'L' loops, 'C' conditions, 'F'
  // functions, with their start bytes.
  std::vector<std::pair<char, uint32_t>> context_;
};

}  // namespace devcheck::lint::detail
