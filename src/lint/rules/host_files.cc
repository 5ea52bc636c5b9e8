// DC105's judgement of files holding host values alone (host_files.h).
#include "host_files.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "../common.h"
#include "../stack.h"

namespace devcheck::lint::detail {

// The file argument of torch.save (its second) or torch.load (its first).
TSNode file_argument(const Source& source, TSNode call, std::size_t position) {
  const TSNode f = source.keyword(call, "f");
  if (!ts_node_is_null(f)) return f;
  const std::vector<TSNode> args = source.positional(call);
  return args.size() > position ? args[position] : TSNode{};
}

// The names a path is built from: identifiers and attribute chains
// (`self.data_file`), and for a name assigned in `scope`, those of the values
// it was given (`file = os.path.join(root, META_FILE)`), a few levels deep.
// With `callee_only`, a call gives the names of what it calls alone (what
// `parse_meta(root)` returns is made by it, not handed in).
void path_words(const Source& source, TSNode node, int scope, std::vector<std::string_view>& words,
                bool callee_only, int depth) {
  if (ts_node_is_null(node) || depth > 3 || stack_nearly_exhausted()) return;
  if (callee_only && is(node, "call")) node = field(node, "function");
  if (is(node, "attribute")) {
    words.push_back(source.text(node));
    return;
  }
  if (is(node, "identifier")) {
    words.push_back(source.text(node));
    const auto& assigns = source.scopes()[scope].assigns;
    const auto found = assigns.find(std::string(source.text(node)));
    if (found == assigns.end()) return;
    for (const TSNode value : found->second) {
      path_words(source, value, scope, words, callee_only, depth + 1);
    }
    return;
  }
  const uint32_t n = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < n; ++i) {
    path_words(source, ts_node_named_child(node, i), scope, words, callee_only, depth);
  }
}

// What a save writes to: its file argument, or `X` for the `f` of an
// enclosing `with open(X, "wb") as f:`.
TSNode written_path(const Source& source, TSNode save) {
  const TSNode file = file_argument(source, save, 1);
  if (!is(file, "identifier")) return file;
  for (TSNode n = ts_node_parent(save); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) break;
    if (!is(n, "with_statement")) continue;
    const TSNode clause = ts_node_named_child(n, 0);
    const uint32_t items = ts_node_named_child_count(clause);
    for (uint32_t i = 0; i < items; ++i) {
      const TSNode pattern = ts_node_named_child(ts_node_named_child(clause, i), 0);
      if (!is(pattern, "as_pattern")) continue;
      const TSNode opened = ts_node_named_child(pattern, 0);
      const TSNode alias = field(pattern, "alias");
      if (is(opened, "call") && source.text(field(opened, "function")) == "open" &&
          !ts_node_is_null(alias) && source.text(alias) == source.text(file)) {
        const std::vector<TSNode> args = source.positional(opened);
        return args.empty() ? TSNode{} : args[0];
      }
    }
  }
  return file;
}

namespace {

// The parameters of a function scope, but `self` and `cls`.
std::vector<std::string_view> parameter_names(const Source& source, int function) {
  std::vector<std::string_view> names;
  const TSNode parameters = field(source.scopes()[function].node, "parameters");
  const uint32_t n = ts_node_named_child_count(parameters);
  for (uint32_t i = 0; i < n; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (!is(p, "identifier")) {
      p = is(field(p, "name"), "identifier") ? field(p, "name") : ts_node_named_child(p, 0);
    }
    const std::string_view name = source.text(p);
    if (is(p, "identifier") && name != "self" && name != "cls") names.push_back(name);
  }
  return names;
}

// The parameter of `function` (a function of the module, not a method) that
// `call` hands `value` to, by position or by keyword; empty when none.
std::string_view parameter_given(const Source& source, const Call& call, int function,
                                 TSNode value) {
  const std::vector<std::string_view> names = parameter_names(source, function);
  const std::vector<TSNode> args = source.positional(call.node);
  for (std::size_t i = 0; i < args.size() && i < names.size(); ++i) {
    if (source.text(args[i]) == source.text(value)) return names[i];
  }
  const TSNode arguments = field(call.node, "arguments");
  for (uint32_t i = 0, n = ts_node_named_child_count(arguments); i < n; ++i) {
    const TSNode a = ts_node_named_child(arguments, i);
    if (is(a, "keyword_argument") && source.text(field(a, "value")) == source.text(value)) {
      return source.text(field(a, "name"));
    }
  }
  return {};
}

// What a class saves and reads back in its own format (speechbrain's
// schedulers: `save(self, path)` writes `{"losses": self.losses, "n_steps":
// self.n_steps}`, `load(self, path)` sets `self.losses = data["losses"]`).
// Where every `self.x` it saves only ever holds values that cannot be a
// tensor on a device (numbers, strings, lists and dicts of them, a tensor
// after `.cpu()`, `.item()`, `.tolist()`), the file loads on any host, and
// weights_only=True reads it.
class ClassFormat {
 public:
  ClassFormat(const Source& source, int owner, TSNode load)
      : source_(source), owner_(owner), load_(load) {}

  // Whether `load` (in a method of the class) reads back what every
  // torch.save of the class writes, and that holds host values alone: the
  // load restores (`self.x = data["x"]`, `self.x = torch.load(path)`) an
  // attribute a save writes.
  bool reads_host_state() {
    bool saved = false;
    for (const Call& save : source_.calls()) {
      if (save.qualified != "torch.save" || !in_class(save.scope)) continue;
      const std::vector<TSNode> args = source_.positional(save.node);
      TSNode object = source_.keyword(save.node, "obj");
      if (ts_node_is_null(object) && !args.empty()) object = args[0];
      if (ts_node_is_null(object) || !saved_host(object, save.scope)) return false;
      saved = true;
    }
    return saved && restores_saved();
  }

 private:
  bool in_class(int scope) const {
    for (int s = scope; s >= 0; s = source_.scopes()[s].parent) {
      if (source_.scopes()[s].owner_class == owner_) return true;
    }
    return false;
  }

  // `self.x`'s name, or empty.
  std::string_view self_name(TSNode node) const {
    if (!is(node, "attribute")) return {};
    const TSNode object = field(node, "object");
    return is(object, "identifier") && source_.text(object) == "self"
               ? source_.text(field(node, "attribute"))
               : std::string_view{};
  }

  // The value a name holds where `use` reads it: its last assignment in
  // `scope` before the use; null when none (a parameter).
  TSNode value_before(TSNode name, int scope) const {
    const auto found = source_.scopes()[scope].assigns.find(std::string(source_.text(name)));
    TSNode value{};
    if (found == source_.scopes()[scope].assigns.end()) return value;
    for (const TSNode rhs : found->second) {
      if (ts_node_start_byte(rhs) < ts_node_start_byte(name)) value = rhs;
    }
    return value;
  }

  // What a save writes: a `self.x`, a dict, list or tuple written out of
  // host values and `self.x`s, or a name holding one.
  bool saved_host(TSNode value, int scope) {
    if (is(value, "identifier")) value = value_before(value, scope);
    const std::string_view name = self_name(value);
    if (!name.empty()) {
      saved_.push_back(name);
      return attribute_host(name);
    }
    if (!is(value, "dictionary") && !is(value, "list") && !is(value, "tuple")) return false;
    for (uint32_t i = 0, n = ts_node_named_child_count(value); i < n; ++i) {
      TSNode item = ts_node_named_child(value, i);
      if (is(item, "pair")) item = field(item, "value");
      const std::string_view attribute = self_name(item);
      if (!attribute.empty()) saved_.push_back(attribute);
      if (!host(item, scope)) return false;
    }
    return true;
  }

  // Whether every value the class puts in `self.x` is a host value: `self.x
  // = v`, `self.x += v`, `self.x[k] = v`, `self.x.append(v)` (and `extend`,
  // `insert`, `update`, `add`, `setdefault`), and at least one such value
  // made by the class. What the class's own torch.load gave back (`self.x =
  // data["x"]`) is what it saved.
  bool attribute_host(std::string_view name) {
    if (std::find(checking_.begin(), checking_.end(), name) != checking_.end()) return true;
    checking_.push_back(name);
    const TSNode body = field(source_.scopes()[owner_].node, "body");
    std::vector<TSNode> stack{body};
    // The values the class makes itself: an attribute filled only from the
    // load (`self.w = torch.load(path)`) holds whatever file it was given.
    int made = 0;
    while (!stack.empty()) {
      const TSNode n = stack.back();
      stack.pop_back();
      for (uint32_t i = 0, k = ts_node_named_child_count(n); i < k; ++i) {
        stack.push_back(ts_node_named_child(n, i));
      }
      TSNode value{};
      if (is(n, "assignment") || is(n, "augmented_assignment")) {
        TSNode left = field(n, "left");
        if (is(left, "pattern_list") || is(left, "tuple_pattern")) {
          // `self.x, y = ...`: what it gets is not known here.
          for (uint32_t i = 0, k = ts_node_named_child_count(left); i < k; ++i) {
            if (self_name(ts_node_named_child(left, i)) == name) return false;
          }
          continue;
        }
        if (is(left, "subscript")) left = field(left, "value");
        if (self_name(left) != name) continue;
        value = field(n, "right");
      } else if (is(n, "call")) {
        const TSNode function = field(n, "function");
        if (!is(function, "attribute") || self_name(field(function, "object")) != name ||
            !names_any(source_.text(field(function, "attribute")),
                       {"append", "extend", "insert", "update", "add", "setdefault"})) {
          continue;
        }
        const TSNode args = field(n, "arguments");
        for (uint32_t i = 0, k = ts_node_named_child_count(args); i < k; ++i) {
          if (!host(ts_node_named_child(args, i), source_.scope_of(n))) return false;
        }
        ++made;
        continue;
      } else {
        continue;
      }
      if (from_load(value, source_.scope_of(n))) continue;
      if (ts_node_is_null(value) || !host(value, source_.scope_of(n))) return false;
      ++made;
    }
    return made > 0;
  }

  // Whether `value` is what the load gave back: the call, a name holding it,
  // or an item of it (`data["losses"]`).
  bool from_load(TSNode value, int scope) const {
    if (is(value, "subscript")) value = field(value, "value");
    if (is(value, "identifier")) value = value_before(value, scope);
    return is(value, "call") && ts_node_eq(value, load_);
  }

  // A value that cannot be a tensor on a device.
  bool host(TSNode value, int scope, int depth = 0) {
    if (ts_node_is_null(value) || depth > 8) return false;
    if (is(value, "integer") || is(value, "float") || is(value, "string") ||
        is(value, "concatenated_string") || is(value, "true") || is(value, "false") ||
        is(value, "none")) {
      return true;
    }
    if (is(value, "identifier")) {
      const TSNode assigned = value_before(value, scope);
      return !ts_node_is_null(assigned) && host(assigned, scope, depth + 1);
    }
    const std::string_view name = self_name(value);
    if (!name.empty()) return attribute_host(name);
    if (is(value, "subscript")) {
      // What the class's own load gave back: `data["losses"]`.
      TSNode object = field(value, "value");
      if (is(object, "identifier")) object = value_before(object, scope);
      return is(object, "call") && ts_node_eq(object, load_);
    }
    if (is(value, "call")) {
      if (ts_node_eq(value, load_)) return true;
      const TSNode function = field(value, "function");
      const std::string_view callee =
          source_.text(is(function, "attribute") ? field(function, "attribute") : function);
      if (is(function, "attribute"))
        return callee == "cpu" || callee == "item" || callee == "tolist";
      return callee == "int" || callee == "float" || callee == "str" || callee == "bool" ||
             callee == "len";
    }
    if (is(value, "dictionary") || is(value, "list") || is(value, "tuple") || is(value, "set") ||
        is(value, "pair") || is(value, "unary_operator") || is(value, "binary_operator") ||
        is(value, "parenthesized_expression")) {
      for (uint32_t i = 0, n = ts_node_named_child_count(value); i < n; ++i) {
        if (!host(ts_node_named_child(value, i), scope, depth + 1)) return false;
      }
      return true;
    }
    return false;
  }

  // Whether the load's method puts what it read back into an attribute a
  // save writes: `self.x = torch.load(path)`, or `self.x = data["x"]` of
  // the name the load was given to.
  bool restores_saved() const {
    const TSNode method = source_.scopes()[source_.function_of(source_.scope_of(load_))].node;
    std::vector<TSNode> stack{method};
    while (!stack.empty()) {
      const TSNode n = stack.back();
      stack.pop_back();
      for (uint32_t i = 0, k = ts_node_named_child_count(n); i < k; ++i) {
        stack.push_back(ts_node_named_child(n, i));
      }
      if (!is(n, "assignment")) continue;
      const std::string_view name = self_name(field(n, "left"));
      if (name.empty() || std::find(saved_.begin(), saved_.end(), name) == saved_.end()) continue;
      TSNode value = field(n, "right");
      if (is(value, "subscript")) value = field(value, "value");
      if (is(value, "identifier")) value = value_before(value, source_.scope_of(n));
      if (ts_node_eq(value, load_)) return true;
    }
    return false;
  }

  const Source& source_;
  int owner_;
  TSNode load_;
  std::vector<std::string_view> saved_;
  std::vector<std::string_view> checking_;
};

// The expression a path names: a name's value where the scope gives it one
// (`load_path = os.path.join(class_tmpdir, "output.pt")`), else the path.
TSNode path_expression(const Source& source, TSNode path, int scope) {
  if (!is(path, "identifier")) return path;
  const TSNode value = source.value_of(std::string(source.text(path)), scope);
  return ts_node_is_null(value) ? path : value;
}

// Whether `path` holds a string with a '.': a file's name (`"output.pt"`),
// not a directory alone.
bool names_a_file(const Source& source, TSNode path) {
  std::vector<TSNode> stack{path};
  while (!stack.empty()) {
    const TSNode n = stack.back();
    stack.pop_back();
    if (is(n, "string_content") && source.text(n).find('.') != std::string_view::npos) return true;
    for (uint32_t i = 0, k = ts_node_named_child_count(n); i < k; ++i) {
      stack.push_back(ts_node_named_child(n, i));
    }
  }
  return false;
}

// A value that holds no tensor on a device: a literal, a tensor after
// `.cpu()` (`.numpy()`, `.tolist()`, `.item()`), or a dict, list or tuple of
// them.
bool host_value(const Source& source, TSNode value, int depth = 0) {
  if (ts_node_is_null(value) || depth > 4) return false;
  if (is(value, "integer") || is(value, "float") || is(value, "string") || is(value, "true") ||
      is(value, "false") || is(value, "none")) {
    return true;
  }
  if (is(value, "call")) {
    const TSNode function = field(value, "function");
    return is(function, "attribute") &&
           names_any(source.text(field(function, "attribute")), {"cpu", "numpy", "tolist", "item"});
  }
  if (!is(value, "dictionary") && !is(value, "list") && !is(value, "tuple") && !is(value, "pair")) {
    return false;
  }
  for (uint32_t i = 0, n = ts_node_named_child_count(value); i < n; ++i) {
    if (!host_value(source, ts_node_named_child(value, i), depth + 1)) return false;
  }
  return true;
}

// Whether `name` (a name `assignment` gives the load's value) is only
// returned after it: `return name` or `return name.method(...)` (not
// `.to(...)` or `.cuda()`), once at least.
bool only_returned(const Source& source, TSNode body, TSNode assignment, std::string_view name) {
  int returned = 0;
  std::vector<TSNode> stack{body};
  while (!stack.empty()) {
    const TSNode n = stack.back();
    stack.pop_back();
    if (is(n, "identifier") && source.text(n) == name &&
        ts_node_start_byte(n) >= ts_node_end_byte(assignment)) {
      TSNode up = ts_node_parent(n);
      if (is(up, "attribute") && ts_node_eq(field(up, "object"), n) &&
          is(ts_node_parent(up), "call")) {
        // A move to a device says it is a tensor, whatever the annotation.
        const std::string_view method = source.text(field(up, "attribute"));
        if (method == "to" || names_any(method, {"cuda"})) return false;
        up = ts_node_parent(ts_node_parent(up));
      }
      if (!is(up, "return_statement")) return false;
      ++returned;
      continue;
    }
    for (uint32_t i = 0, k = ts_node_named_child_count(n); i < k; ++i) {
      stack.push_back(ts_node_named_child(n, i));
    }
  }
  return returned > 0;
}

}  // namespace

// Whether `load` reads a file this file writes itself from what it made
// there, in a file that puts nothing on a device: a dataset's processed
// files (`torch.save(dataset, f)` in `with open(self.data_file, "wb") as f`,
// then `torch.load(self.data_file)`). The load and the save name the file
// alike: the same `self.x` or module-level name (`META_FILE`) in the paths
// they are built from. What is saved must not come from the saving
// function's parameters (a model handed in may be on a GPU).
bool written_here_on_host(const Source& source, const Call& load) {
  const TSNode file = file_argument(source, load.node, 0);
  if (ts_node_is_null(file)) return false;
  std::vector<std::string_view> read;
  path_words(source, file, load.scope, read);
  const auto& constants = source.scopes()[0].assigns;
  const auto names_file = [&](std::string_view w) {
    return w.rfind("self.", 0) == 0 || constants.count(std::string(w)) != 0;
  };
  read.erase(std::remove_if(read.begin(), read.end(), [&](auto w) { return !names_file(w); }),
             read.end());
  if (read.empty()) return false;
  bool written = false;
  for (const Call& save : source.calls()) {
    if (save.qualified != "torch.save") continue;
    std::vector<std::string_view> words;
    path_words(source, written_path(source, save.node), save.scope, words);
    if (std::none_of(words.begin(), words.end(), [&](std::string_view w) {
          return std::find(read.begin(), read.end(), w) != read.end();
        })) {
      continue;
    }
    const std::vector<TSNode> args = source.positional(save.node);
    TSNode saved = source.keyword(save.node, "obj");
    if (ts_node_is_null(saved) && !args.empty()) saved = args[0];
    if (ts_node_is_null(saved)) return false;
    std::vector<std::string_view> from;
    path_words(source, saved, save.scope, from, /*callee_only=*/true);
    const int function = source.function_of(save.scope);
    if (function >= 0) {
      for (const std::string_view p : parameter_names(source, function)) {
        for (const std::string_view w : from) {
          if (w == p || (w.size() > p.size() && w.substr(0, p.size()) == p && w[p.size()] == '.')) {
            return false;
          }
        }
      }
    }
    written = true;
  }
  return written && !uses_a_device(source);
}

// Whether `load` reads a file that a function of the file writes when the
// loading function hands it the load's path (`create_random_text_data(
// input_file_text, ...)`, then `torch.load(input_file_text)`), in a file
// that puts nothing on a device: the function saves what it made itself (not
// from its parameters, as written_here_on_host), which stays on the host.
bool written_by_called_function_on_host(const Source& source, const Call& load) {
  const TSNode file = file_argument(source, load.node, 0);
  const int function = source.function_of(load.scope);
  if (!is(file, "identifier") || function < 0 || uses_a_device(source)) return false;
  const std::vector<Scope>& scopes = source.scopes();
  for (const Call& call : source.calls()) {
    const TSNode callee_name = field(call.node, "function");
    if (source.function_of(call.scope) != function || !is(callee_name, "identifier")) continue;
    int callee = -1;
    int same = 0;
    for (std::size_t s = 0; s < scopes.size(); ++s) {
      if (scopes[s].kind == ScopeKind::kFunction && scopes[s].name == source.text(callee_name)) {
        callee = scopes[s].owner_class < 0 ? static_cast<int>(s) : -1;
        ++same;
      }
    }
    if (same != 1 || callee < 0) continue;
    const std::string_view parameter = parameter_given(source, call, callee, file);
    if (parameter.empty()) continue;
    const std::vector<std::string_view> parameters = parameter_names(source, callee);
    for (const Call& save : source.calls()) {
      if (save.qualified != "torch.save" || source.function_of(save.scope) != callee) continue;
      const TSNode written = written_path(source, save.node);
      if (!is(written, "identifier") || source.text(written) != parameter) continue;
      const std::vector<TSNode> args = source.positional(save.node);
      TSNode saved = source.keyword(save.node, "obj");
      if (ts_node_is_null(saved) && !args.empty()) saved = args[0];
      if (ts_node_is_null(saved)) continue;
      std::vector<std::string_view> from;
      path_words(source, saved, save.scope, from, /*callee_only=*/true);
      const bool handed_in = std::any_of(from.begin(), from.end(), [&](std::string_view w) {
        return std::any_of(parameters.begin(), parameters.end(), [&](std::string_view p) {
          return w == p ||
                 (w.size() > p.size() && w.substr(0, p.size()) == p && w[p.size()] == '.');
        });
      });
      if (!handed_in) return true;
    }
  }
  return false;
}

// Whether `load`, in a method of a class, reads back the host state its own
// class saves (ClassFormat).
bool reads_own_class_state(const Source& source, const Call& load) {
  const int function = source.function_of(load.scope);
  if (function < 0 || source.scopes()[function].owner_class < 0) return false;
  return ClassFormat(source, source.scopes()[function].owner_class, load.node).reads_host_state();
}

bool saved_from_host(const Source& source, const Call& load) {
  const TSNode file = file_argument(source, load.node, 0);
  if (ts_node_is_null(file) || ts_node_is_null(source.keyword(load.node, "weights_only"))) {
    return false;
  }
  const TSNode read = path_expression(source, file, load.scope);
  if (!names_a_file(source, read)) return false;
  bool saved = false;
  for (const Call& save : source.calls()) {
    if (save.qualified != "torch.save") continue;
    const TSNode written = path_expression(source, written_path(source, save.node), save.scope);
    if (ts_node_is_null(written) || source.text(written) != source.text(read)) continue;
    const std::vector<TSNode> args = source.positional(save.node);
    TSNode object = source.keyword(save.node, "obj");
    if (ts_node_is_null(object) && !args.empty()) object = args[0];
    if (!host_value(source, object)) return false;
    saved = true;
  }
  return saved;
}

bool returned_as_numpy(const Source& source, const Call& load) {
  const int function = source.function_of(load.scope);
  if (function < 0 || ts_node_is_null(source.keyword(load.node, "weights_only"))) return false;
  const TSNode definition = source.scopes()[function].node;
  TSNode type = field(definition, "return_type");
  if (is(type, "type")) type = ts_node_named_child(type, 0);
  if (ts_node_is_null(type) || source.qualify(type) != "numpy.ndarray") return false;
  const TSNode parent = ts_node_parent(load.node);
  if (is(parent, "return_statement")) return true;
  return is(parent, "assignment") && is(field(parent, "left"), "identifier") &&
         only_returned(source, field(definition, "body"), parent,
                       source.text(field(parent, "left")));
}

}  // namespace devcheck::lint::detail
