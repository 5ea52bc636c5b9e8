#include "syntax.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <iterator>
#include <stdexcept>

#include "grammar.h"

namespace devcheck::lint::detail {
namespace {

// The node types the walk acts on. It meets every node of the tree, so it
// tells them apart by symbol id (one table lookup) instead of by name.
enum class Kind : uint8_t {
  kOther,
  kFunction,
  kClass,
  kLoop,
  kCondition,
  kElif,
  kImport,
  kAssignment,
  kComment,
  kIdentifier,
  kExpressionStatement,
  kKeywordArgument,
  kCall,
  kString,
  // An expression that holds no statement, definition or assignment: what
  // it holds matters to the rules only through calls and comments in it.
  kPlainExpression,
  // A call's arguments or a function's parameters, in parentheses: as a
  // plain expression, and a keyword argument `device=` in it matters too.
  kArguments,
};

// Symbol id -> Kind, for every symbol of the grammar.
const std::vector<Kind>& kinds() {
  static constexpr std::pair<const char*, Kind> kKinds[] = {
      {"function_definition", Kind::kFunction},
      {"class_definition", Kind::kClass},
      {"for_statement", Kind::kLoop},
      {"while_statement", Kind::kLoop},
      {"if_statement", Kind::kCondition},
      {"conditional_expression", Kind::kCondition},
      {"lambda", Kind::kCondition},
      {"elif_clause", Kind::kElif},
      {"import_statement", Kind::kImport},
      {"import_from_statement", Kind::kImport},
      {"assignment", Kind::kAssignment},
      {"comment", Kind::kComment},
      {"identifier", Kind::kIdentifier},
      {"expression_statement", Kind::kExpressionStatement},
      {"keyword_argument", Kind::kKeywordArgument},
      {"call", Kind::kCall},
      {"string", Kind::kString},
      {"attribute", Kind::kPlainExpression},
      {"subscript", Kind::kPlainExpression},
      {"binary_operator", Kind::kPlainExpression},
      {"boolean_operator", Kind::kPlainExpression},
      {"comparison_operator", Kind::kPlainExpression},
      {"unary_operator", Kind::kPlainExpression},
      {"not_operator", Kind::kPlainExpression},
      {"list", Kind::kPlainExpression},
      {"tuple", Kind::kPlainExpression},
      {"set", Kind::kPlainExpression},
      {"dictionary", Kind::kPlainExpression},
      {"pair", Kind::kPlainExpression},
      {"expression_list", Kind::kPlainExpression},
      {"pattern_list", Kind::kPlainExpression},
      {"slice", Kind::kPlainExpression},
      {"concatenated_string", Kind::kPlainExpression},
      {"type", Kind::kPlainExpression},
      {"argument_list", Kind::kArguments},
      {"parameters", Kind::kArguments},
  };
  static const std::vector<Kind> table = symbol_table(kKinds, Kind::kOther);
  return table;
}

// A character of a Python name (ASCII; other names take the long ways).
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

Kind kind(TSNode node) { return symbol_of(kinds(), node, Kind::kOther); }

}  // namespace

Parser::Parser(std::uint64_t timeout_micros) : parser_(ts_parser_new()) {
  ts_parser_set_timeout_micros(parser_.get(), timeout_micros);
  if (!ts_parser_set_language(parser_.get(), tree_sitter_python())) {
    // The grammar's ABI is outside what the linked libtree-sitter reads.
    throw std::runtime_error("[devcheck] the Python grammar's ABI (" +
                             std::to_string(ts_language_version(tree_sitter_python())) +
                             ") is not one this libtree-sitter reads");
  }
}

std::unique_ptr<TSTree, TreeDeleter> Parser::parse(std::string_view source) {
  std::unique_ptr<TSTree, TreeDeleter> tree(ts_parser_parse_string(
      parser_.get(), nullptr, source.data(), static_cast<uint32_t>(source.size())));
  // Given up (the time limit): the next parse starts afresh, not from here.
  if (!tree) ts_parser_reset(parser_.get());
  return tree;
}

Source::Source(std::string_view text, TSTree* tree) : text_(text), tree_(tree) {
  Scope module;
  module.node = root();
  scopes_.push_back(std::move(module));
  walk(root(), 0, 0);
  classify_classes();
}

std::string Source::dotted(TSNode node) const {
  if (is(node, "identifier")) return std::string(text(node));
  if (is(node, "attribute")) {
    // Written without spaces, comments or anything but names and dots, an
    // attribute chain is its own text (most are: `torch.nn.functional`).
    // (Broken code can hold `a..b` or a name that starts with a digit: those
    // take the long way, which checks each part.)
    const std::string_view written = text(node);
    const bool plain = !written.empty() &&
                       std::isdigit(static_cast<unsigned char>(written.front())) == 0 &&
                       written.front() != '.' && written.back() != '.' &&
                       written.find("..") == std::string_view::npos &&
                       std::all_of(written.begin(), written.end(),
                                   [](char c) { return name_char(c) || c == '.'; });
    if (plain) return std::string(written);
    // The names down the chain, in a list (a chain of thousands is as deep).
    std::vector<std::string_view> names;
    TSNode n = node;
    for (; is(n, "attribute"); n = field(n, "object")) names.push_back(text(field(n, "attribute")));
    if (!is(n, "identifier")) return {};
    std::string out(text(n));
    for (auto name = names.rbegin(); name != names.rend(); ++name) {
      out += '.';
      out += *name;
    }
    return out;
  }
  return {};
}

std::string Source::qualify(TSNode node) const {
  const std::string name = dotted(node);
  if (name.empty()) return {};
  const auto dot = name.find('.');
  const auto found = imports_.find(name.substr(0, dot));
  if (found == imports_.end()) return {};
  return dot == std::string::npos ? found->second : found->second + name.substr(dot);
}

namespace {

// What a call's argument is, by its symbol (no type name compared).
enum class Arg { kOther, kKeyword, kComment, kListSplat, kDictionarySplat };

Arg arg_kind(TSNode arg) {
  static constexpr std::pair<const char*, Arg> kArgs[] = {
      {"keyword_argument", Arg::kKeyword},
      {"comment", Arg::kComment},
      {"list_splat", Arg::kListSplat},
      {"dictionary_splat", Arg::kDictionarySplat},
  };
  static const std::vector<Arg> table = symbol_table(kArgs, Arg::kOther);
  return symbol_of(table, arg, Arg::kOther);
}

// A call's argument list, or a null node where it has none (a call of a
// generator expression: `f(x for x in y)`).
TSNode argument_list(TSNode call) {
  static const TSSymbol list = ts_language_symbol_for_name(tree_sitter_python(), "argument_list",
                                                           sizeof "argument_list" - 1, true);
  const TSNode args = field(call, fields().arguments);
  return !ts_node_is_null(args) && ts_node_symbol(args) == list ? args : TSNode{};
}

// Calls `visit` on each named child of `args` in order, until it returns
// true. By index: an argument list is short, and a cursor's steps cost more
// than the walk over the children before each (measured with callgrind).
template <typename Visit>
bool any_named_child(TSNode args, Visit visit) {
  const uint32_t count = ts_node_named_child_count(args);
  for (uint32_t i = 0; i < count; ++i) {
    if (visit(ts_node_named_child(args, i))) return true;
  }
  return false;
}

}  // namespace

TSNode Source::keyword(TSNode call, std::string_view name) const {
  // Rules ask most calls of a file for `device=`, which few of them have:
  // a call whose text does not hold the name has no such keyword.
  if (text(call).find(name) == std::string_view::npos) return TSNode{};
  const TSNode args = argument_list(call);
  if (ts_node_is_null(args)) return TSNode{};
  TSNode value{};
  any_named_child(args, [&](TSNode arg) {
    if (arg_kind(arg) != Arg::kKeyword || text(field(arg, fields().name)) != name) return false;
    value = field(arg, fields().value);
    return true;
  });
  return value;
}

std::vector<TSNode> Source::positional(TSNode call) const {
  std::vector<TSNode> out;
  const TSNode args = argument_list(call);
  if (ts_node_is_null(args)) return out;
  any_named_child(args, [&](TSNode arg) {
    if (arg_kind(arg) == Arg::kOther) out.push_back(arg);
    return false;
  });
  return out;
}

bool Source::has_splat(TSNode call) const {
  const TSNode args = argument_list(call);
  if (ts_node_is_null(args)) return true;
  return any_named_child(args, [](TSNode arg) {
    const Arg k = arg_kind(arg);
    return k == Arg::kListSplat || k == Arg::kDictionarySplat;
  });
}

const Call* Source::call_at(TSNode node) const {
  const uint32_t start = ts_node_start_byte(node);
  auto it = std::lower_bound(calls_.begin(), calls_.end(), start, [](const Call& c, uint32_t s) {
    return ts_node_start_byte(c.node) < s;
  });
  for (; it != calls_.end() && ts_node_start_byte(it->node) == start; ++it) {
    if (ts_node_eq(it->node, node)) return &*it;
  }
  return nullptr;
}

int Source::scope_of(TSNode node) const {
  const uint32_t start = ts_node_start_byte(node);
  const uint32_t end = ts_node_end_byte(node);
  int best = 0;
  for (int i = 1; i < static_cast<int>(scopes_.size()); ++i) {
    const TSNode s = scopes_[i].node;
    if (ts_node_start_byte(s) <= start && end <= ts_node_end_byte(s) &&
        ts_node_start_byte(s) >= ts_node_start_byte(scopes_[best].node)) {
      best = i;
    }
  }
  return best;
}

int Source::function_of(int scope) const {
  for (int s = scope; s >= 0; s = scopes_[s].parent) {
    if (scopes_[s].kind == ScopeKind::kFunction) return s;
  }
  return -1;
}

TSNode Source::value_of(const std::string& name, int scope) const {
  for (int s = scope; s >= 0; s = scopes_[s].parent) {
    const auto found = scopes_[s].assigns.find(name);
    if (found != scopes_[s].assigns.end() && !found->second.empty()) return found->second.back();
  }
  return TSNode{};
}

void Source::add_import(TSNode node) {
  const uint32_t count = ts_node_named_child_count(node);
  if (is(node, "import_statement")) {
    for (uint32_t i = 0; i < count; ++i) {
      const TSNode child = ts_node_named_child(node, i);
      if (is(child, "dotted_name")) {
        // `import torch.nn` binds `torch`.
        const std::string name(text(child));
        const std::string root = name.substr(0, name.find('.'));
        imports_[root] = root;
      } else if (is(child, "aliased_import")) {
        imports_[std::string(text(field(child, "alias")))] =
            std::string(text(field(child, "name")));
      }
    }
    return;
  }
  const TSNode module = field(node, "module_name");
  if (!is(module, "dotted_name")) return;  // relative imports stay unresolved
  const std::string from(text(module));
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_named_child(node, i);
    if (ts_node_eq(child, module)) continue;
    if (is(child, "dotted_name")) {
      imports_[std::string(text(child))] = from + "." + std::string(text(child));
    } else if (is(child, "aliased_import")) {
      imports_[std::string(text(field(child, "alias")))] =
          from + "." + std::string(text(field(child, "name")));
    }
  }
}

void Source::add_assignment(TSNode node, int scope) {
  const TSNode left = field(node, "left");
  const TSNode right = field(node, "right");
  if (ts_node_is_null(right)) return;
  if (is(left, "identifier") || (is(left, "attribute") && is(field(left, "object"), "identifier") &&
                                 text(field(left, "object")) == "self")) {
    scopes_[scope].assigns[std::string(text(left))].push_back(right);
  }
}

void Source::add_call(TSNode node, int scope) {
  Call call;
  call.node = node;
  call.scope = scope;
  call.branch = open_branches_.empty() ? -1 : open_branches_.back();
  const TSNode function = field(node, "function");
  call.qualified = qualify(function);
  for (const auto& [start, end] : moving_) {
    call.moved = call.moved || (ts_node_start_byte(node) >= start && ts_node_end_byte(node) <= end);
  }
  if (is(function, "attribute")) {
    call.method = text(field(function, "attribute"));
    call.object = field(function, "object");
    if (call.method == "to" && call.qualified.empty()) {
      const std::vector<TSNode> args = positional(node);
      const TSNode target = args.empty() ? keyword(node, "device") : args[0];
      const std::string_view t = ts_node_is_null(target) ? std::string_view() : text(target);
      const bool named = is(target, "identifier") && t.find("device") != std::string_view::npos;
      const bool of_tensor =
          is(target, "attribute") && text(field(target, "attribute")) == "device";
      const bool literal = is(target, "string") && t.find("cuda") != std::string_view::npos;
      if (named || of_tensor || literal) note_device_use(scope, node);
    }
  }
  for (auto it = context_.rbegin(); it != context_.rend() && it->first != 'F'; ++it) {
    if (it->first == 'C' && call.loop == Call::kNoLoop) call.conditional = true;
    if (it->first == 'L' && call.loop == Call::kNoLoop) {
      call.loop = it->second;
      // The loop whose own step calls backward() (not an epoch loop around
      // it: what runs there once per epoch is not "every step").
      if (call.method == "backward") training_loops_.insert(it->second);
    }
  }
  calls_.push_back(std::move(call));
}

void Source::note_device_use(int scope, TSNode node) {
  Scope& s = scopes_[scope];
  s.uses_device = true;
  s.first_device_use = std::min(s.first_device_use, ts_node_start_byte(node));
}

bool Source::mentions(std::string_view word) const {
  for (std::size_t i = 0; i < std::size(kWatchedWords); ++i) {
    if (kWatchedWords[i] == word) return (watched_ >> i & 1U) != 0;
  }
  throw std::logic_error("[devcheck] Source::mentions: \"" + std::string(word) +
                         "\" is not one of Source::kWatchedWords");
}

void Source::note_word(std::string_view word) {
  for (std::size_t i = 0; i < std::size(kWatchedWords); ++i) {
    if (kWatchedWords[i] == word) watched_ |= 1U << i;
  }
}

// The watched words in code that is not walked, as whole words. A word in a
// string literal there counts too: the rules it quiets (DC108, DC115) then
// say nothing, which is the side they err on.
void Source::note_words_in(std::string_view code) {
  for (std::size_t i = 0; i < std::size(kWatchedWords); ++i) {
    // As a whole word: not `my_is_available_flag`.
    const std::string_view word = kWatchedWords[i];
    for (auto at = code.find(word); at != std::string_view::npos; at = code.find(word, at + 1)) {
      const std::size_t end = at + word.size();
      if ((at == 0 || !name_char(code[at - 1])) && (end == code.size() || !name_char(code[end]))) {
        watched_ |= 1U << i;
        break;
      }
    }
  }
}

bool Source::holds_nothing_to_walk(TSNode node, std::size_t from) {
  // No parenthesis after `from` (a call's, or a lambda's or comprehension's
  // that could hold one; one that begins the node, a tuple's or a
  // parenthesized operand's, opens no call), no '#' (a comment), and no error
  // (whose recovery can put statements anywhere): no call, comment,
  // definition, import or assignment below `node`, and the rules need
  // nothing else from it but its watched words, noted here from its text.
  const std::string_view code = text(node);
  if (code.find('#') != std::string_view::npos ||
      code.find('(', std::min(from, code.size())) != std::string_view::npos ||
      ts_node_has_error(node)) {
    return false;
  }
  note_words_in(code);
  return true;
}

void Source::walk(TSNode node, int scope, int depth) {
  // Deeper than any real program: stop rather than overflow the stack.
  if (depth > kMaxDepth) return;
  const Kind k = kind(node);
  int inner = scope;
  char context = 0;
  bool branch = false;
  switch (k) {
    case Kind::kFunction:
    case Kind::kClass: {
      Scope s;
      s.kind = k == Kind::kFunction ? ScopeKind::kFunction : ScopeKind::kClass;
      s.node = node;
      s.name = std::string(text(field(node, "name")));
      s.parent = scope;
      if (s.kind == ScopeKind::kFunction && scopes_[scope].kind == ScopeKind::kClass) {
        s.owner_class = scope;
      }
      inner = static_cast<int>(scopes_.size());
      if (s.kind == ScopeKind::kClass) {
        classes_[s.name].scope = inner;
        std::vector<std::string>& bases = bases_[s.name];
        const TSNode supers = field(node, "superclasses");
        if (!ts_node_is_null(supers)) {
          const uint32_t count = ts_node_named_child_count(supers);
          for (uint32_t i = 0; i < count; ++i) {
            const TSNode base = ts_node_named_child(supers, i);
            const std::string q = qualify(base);
            bases.push_back(q.empty() ? dotted(base) : q);
          }
        }
      } else {
        context = 'F';
      }
      scopes_.push_back(std::move(s));
      break;
    }
    case Kind::kLoop:
      context = 'L';
      break;
    case Kind::kCondition:
      context = 'C';
      branch = !is(node, "lambda");
      break;
    case Kind::kElif:
      branch = true;
      break;
    case Kind::kImport:
      add_import(node);
      break;
    case Kind::kAssignment:
      add_assignment(node, scope);
      if (holds_nothing_to_walk(node, 0)) return;
      break;
    case Kind::kComment:
      comments_.push_back(node);
      break;
    case Kind::kIdentifier:
      note_word(text(node));
      break;
    case Kind::kExpressionStatement:
      if (ts_node_named_child_count(node) == 1 && is(ts_node_named_child(node, 0), "call")) {
        call_statements_.push_back(node);
      }
      break;
    case Kind::kKeywordArgument:
      if (text(field(node, "name")) == "device") {
        const std::string_view value = text(field(node, "value"));
        if (value.find("cpu") == std::string_view::npos && value != "None" &&
            value.find("meta") == std::string_view::npos) {
          note_device_use(scope, node);
        }
      }
      if (holds_nothing_to_walk(node, 0)) return;
      break;
    case Kind::kCall: {
      add_call(node, scope);
      // The first parenthesis opens the arguments (one in the called
      // expression is another call): with no other one and no `device`,
      // nothing in the call is walked.
      const std::size_t arguments = text(node).find('(');
      if (arguments != std::string_view::npos &&
          text(node).find("device") == std::string_view::npos &&
          holds_nothing_to_walk(node, arguments + 1)) {
        return;
      }
      break;
    }
    case Kind::kString: {
      // Only an f-string has code inside (its interpolations); the parts of
      // any other string (docstrings are most of a string-heavy file's
      // nodes) are not walked.
      const std::string_view quoted = text(node);
      const std::string_view prefix = quoted.substr(0, quoted.find_first_of("'\""));
      if (prefix.find_first_of("fF") == std::string_view::npos) return;
      break;
    }
    case Kind::kPlainExpression:
      // Most attribute chains (`torch.nn.functional`), literal tables and
      // tuples of names and numbers.
      if (holds_nothing_to_walk(node, 1)) return;
      break;
    case Kind::kArguments:
      // The same within the parentheses, when no `device` is written there
      // (a keyword argument device= marks the scope as using a device). Most
      // calls' arguments are such.
      if (text(node).find("device") == std::string_view::npos && holds_nothing_to_walk(node, 1)) {
        return;
      }
      break;
    case Kind::kOther:
      break;
  }
  bool moving = false;
  if (!calls_.empty() && ts_node_eq(calls_.back().node, node) &&
      (calls_.back().method == "to" || calls_.back().method == "cuda")) {
    const TSNode object = calls_.back().object;
    moving_.emplace_back(ts_node_start_byte(object), ts_node_end_byte(object));
    moving = true;
  }
  if (context != 0) context_.emplace_back(context, ts_node_start_byte(node));
  if (branch) {
    branches_.push_back({node, open_branches_.empty() ? -1 : open_branches_.back()});
    open_branches_.push_back(static_cast<int>(branches_.size()) - 1);
  }
  // The named children (punctuation and keywords are anonymous leaves the
  // walk has nothing to do with: no node type of the grammar is anonymous
  // and has children): by index where there are few, with a cursor where
  // there are many. A child by index walks over the ones before it (some 40
  // instructions each in libtree-sitter 0.20), a cursor's move to the next
  // sibling costs some 500 (and from the last child it climbs to the parent
  // only to learn there is none, so the loop counts the children and stops
  // at the last): for the few children of most nodes the index is cheaper.
  const uint32_t children = ts_node_named_child_count(node);
  if (children <= kChildrenByIndex) {
    for (uint32_t i = 0; i < children; ++i) walk(ts_node_named_child(node, i), inner, depth + 1);
  } else {
    TSTreeCursor cursor = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      uint32_t seen = 0;
      do {
        const TSNode child = ts_tree_cursor_current_node(&cursor);
        if (!ts_node_is_named(child)) continue;
        walk(child, inner, depth + 1);
        if (++seen == children) break;
      } while (ts_tree_cursor_goto_next_sibling(&cursor));
    }
    ts_tree_cursor_delete(&cursor);
  }
  if (context != 0) context_.pop_back();
  if (branch) open_branches_.pop_back();
  if (moving) moving_.pop_back();
}

namespace {

// Whether a class named by its qualified name is one of torch's modules: a
// class of torch.nn or torch.ao.nn (its name capitalised, `_ConvNd` too)
// other than those of nn.utils, nn.init, nn.functional and the parameter
// classes (nn.Parameter, nn.UninitializedParameter, ...; nn.ParameterList is
// a module).
bool is_torch_module_class(std::string_view base) {
  if (base.rfind("torch.nn.", 0) != 0 && base.rfind("torch.ao.nn.", 0) != 0) return false;
  for (std::string_view part : {".utils.", ".init.", ".functional.", ".parameter."}) {
    if (base.find(part) != std::string_view::npos) return false;
  }
  std::string_view last = base.substr(base.rfind('.') + 1);
  if (last.find("Parameter") != std::string_view::npos && last != "ParameterList" &&
      last != "ParameterDict") {
    return false;
  }
  if (last == "UninitializedBuffer") return false;
  while (!last.empty() && last.front() == '_') last.remove_prefix(1);
  return !last.empty() && last.front() >= 'A' && last.front() <= 'Z';
}

// A base from outside torch and the standard library's roots a class
// derives from for other ends (abc.ABC, typing.Generic, enum.Enum): one
// imported (a bare name not of this file came by a relative or a star
// import), not a builtin (object, dict, an exception).
bool foreign_class(const std::string& base,
                   const std::unordered_map<std::string, ClassInfo>& classes) {
  static constexpr std::array<std::string_view, 9> kPlain = {
      "torch",       "abc",         "typing", "typing_extensions", "enum",
      "collections", "dataclasses", "numpy",  "unittest"};
  static constexpr std::array<std::string_view, 11> kBuiltins = {
      "object", "dict",  "list", "tuple",     "set",          "str",
      "int",    "float", "type", "Exception", "BaseException"};
  if (classes.count(base) != 0) return false;
  const auto dot = base.find('.');
  if (dot == std::string::npos) {
    const auto ends = [&](std::string_view tail) {
      return base.size() >= tail.size() &&
             base.compare(base.size() - tail.size(), tail.size(), tail.data(), tail.size()) == 0;
    };
    return !base.empty() &&
           std::find(kBuiltins.begin(), kBuiltins.end(), base) == kBuiltins.end() &&
           !ends("Error") && !ends("Warning");
  }
  const std::string_view root = std::string_view(base).substr(0, dot);
  return std::find(kPlain.begin(), kPlain.end(), root) == kPlain.end();
}

}  // namespace

void Source::classify_classes() {
  // A class is a module (dataset) when a base is torch's, or a class of this
  // file that is; bases from elsewhere cannot be told and count as neither.
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& [name, info] : classes_) {
      for (const std::string& base : bases_[name]) {
        // torch's layers are nn.Modules (a subclass of nn.Linear or of
        // nn.modules.conv._ConvNd), and so is Lightning's LightningModule.
        const bool module =
            is_torch_module_class(base) || base == "pytorch_lightning.LightningModule" ||
            base == "pytorch_lightning.core.LightningModule" ||
            base == "lightning.LightningModule" || base == "lightning.pytorch.LightningModule" ||
            (classes_.count(base) != 0 && classes_.at(base).is_module);
        const bool dataset = base == "torch.utils.data.Dataset" ||
                             base == "torch.utils.data.dataset.Dataset" ||
                             (classes_.count(base) != 0 && classes_.at(base).is_dataset);
        if (module && !info.is_module) info.is_module = changed = true;
        info.foreign_base = info.foreign_base || foreign_class(base, classes_);
        if (dataset && !info.is_dataset) info.is_dataset = changed = true;
      }
    }
  }
}

}  // namespace devcheck::lint::detail
