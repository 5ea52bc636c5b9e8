#include "written_here.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.h"

namespace devcheck::lint::detail {
namespace {

// How deep the walks below go into an expression (and the values its names
// hold): a path is a few nodes deep; a deeper one is not judged.
constexpr int kMaxDepth = 32;

// How many nodes the walks below may visit for one question (one load): a
// path is a few dozen. Names holding names (`p1 = join(p0, p0, ...)`, nested)
// are followed at each use, so without a bound a crafted file makes the
// walk exponential in its depth; past the bound a walk stops and the load is
// judged as not written here (DC105 reports it, as without these checks).
constexpr int kMaxVisits = 1 << 14;
thread_local int visits_left = kMaxVisits;

bool visit() { return --visits_left >= 0; }

// Set at the start of each question: a new budget of visits.
struct Question {
  Question() { visits_left = kMaxVisits; }
};

// The last part of a call's callee: `join` of `os.path.join`.
std::string_view callee_name(const Source& source, TSNode call) {
  const TSNode function = field(call, "function");
  if (is(function, "attribute")) return source.text(field(function, "attribute"));
  return is(function, "identifier") ? source.text(function) : std::string_view();
}

// A call that makes a temporary directory or file of this process, or an
// empty in-memory buffer (nothing but this process writes into one).
bool makes_temporary(const Source& source, TSNode call) {
  if (!is(call, "call")) return false;
  const std::string q = source.qualify(field(call, "function"));
  if (q == "io.BytesIO") return ts_node_named_child_count(field(call, "arguments")) == 0;
  if (q.rfind("tempfile.", 0) != 0) return false;
  const std::string_view name = std::string_view(q).substr(9);
  return name == "mkdtemp" || name == "TemporaryDirectory" || name == "NamedTemporaryFile" ||
         name == "TemporaryFile" || name == "SpooledTemporaryFile";
}

// pytest's fixtures that hand a test a new empty directory.
bool temporary_fixture(std::string_view name) {
  return name == "tmp_path" || name == "tmpdir" || name == "tmp_path_factory" ||
         name == "tmpdir_factory";
}

// A pytest test (`test*`) or fixture (decorated `@pytest.fixture`).
bool test_or_fixture(const Source& source, int function) {
  const Scope& f = source.scopes()[function];
  if (f.name.rfind("test", 0) == 0) return true;
  const TSNode up = ts_node_parent(f.node);
  if (!is(up, "decorated_definition")) return false;
  for (uint32_t i = 0, n = ts_node_named_child_count(up); i < n; ++i) {
    const TSNode d = ts_node_named_child(up, i);
    if (is(d, "decorator") && source.text(d).find("fixture") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

// Whether `name` is a temporary-directory fixture of a test or fixture
// around `scope` (a closure in a test reads the test's).
bool fixture_parameter(const Source& source, std::string_view name, int scope) {
  for (int f = source.function_of(scope); f >= 0;
       f = source.function_of(source.scopes()[f].parent)) {
    if (parameter_of(source, name, f)) return temporary_fixture(name) && test_or_fixture(source, f);
  }
  return false;
}

// Whether `name` is bound by a `with tempfile.X(...) as name:` around `at`.
bool with_temporary(const Source& source, std::string_view name, TSNode at) {
  for (TSNode n = ts_node_parent(at); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) return false;
    if (!is(n, "with_statement")) continue;
    const TSNode clause = ts_node_named_child(n, 0);
    for (uint32_t i = 0, k = ts_node_named_child_count(clause); i < k; ++i) {
      const TSNode pattern = ts_node_named_child(ts_node_named_child(clause, i), 0);
      if (is(pattern, "as_pattern") && source.text(field(pattern, "alias")) == name &&
          makes_temporary(source, ts_node_named_child(pattern, 0))) {
        return true;
      }
    }
  }
  return false;
}

// Calls that build a path from another without reading a file.
bool builds_path(std::string_view callee) {
  return callee == "join" || callee == "joinpath" || callee == "str" || callee == "Path" ||
         callee == "fspath" || callee == "as_posix" || callee == "resolve" ||
         callee == "absolute" || callee == "abspath" || callee == "realpath" ||
         callee == "format" || callee == "mktemp" || callee == "mkdir" || callee == "with_suffix" ||
         callee == "with_name";
}

// Whether `node`, a path or part of one, is built from a temporary directory
// or file of this process; the names holding one go to `roots`.
bool temporary(const Source& source, TSNode node, int scope, TSNode at,
               std::vector<std::string_view>& roots, int depth = 0) {
  if (ts_node_is_null(node) || depth > kMaxDepth || !visit()) return false;
  if (is(node, "identifier")) {
    const std::string_view name = source.text(node);
    if (fixture_parameter(source, name, scope) || with_temporary(source, name, at)) {
      roots.push_back(name);
      return true;
    }
    const TSNode value = source.value_of(std::string(name), scope);
    if (!temporary(source, value, scope, at, roots, depth + 1)) return false;
    roots.push_back(name);
    return true;
  }
  if (is(node, "attribute")) {
    const TSNode object = field(node, "object");
    if (is(object, "identifier") && source.text(object) == "self") {
      if (!temporary(source, value_of_object(source, node, scope), scope, at, roots, depth + 1)) {
        return false;
      }
      roots.push_back(source.text(node));
      return true;
    }
    return temporary(source, object, scope, at, roots, depth + 1);
  }
  if (is(node, "call")) {
    if (makes_temporary(source, node)) return true;
    if (!builds_path(callee_name(source, node))) return false;
    const TSNode function = field(node, "function");
    if (is(function, "attribute") &&
        temporary(source, field(function, "object"), scope, at, roots, depth + 1)) {
      return true;
    }
    for (const TSNode arg : source.positional(node)) {
      if (temporary(source, arg, scope, at, roots, depth + 1)) return true;
    }
    return false;
  }
  if (is(node, "binary_operator")) {
    return temporary(source, field(node, "left"), scope, at, roots, depth + 1) ||
           temporary(source, field(node, "right"), scope, at, roots, depth + 1);
  }
  if (is(node, "string")) {
    for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      const TSNode part = ts_node_named_child(node, i);
      if (is(part, "interpolation") &&
          temporary(source, ts_node_named_child(part, 0), scope, at, roots, depth + 1)) {
        return true;
      }
    }
    return false;
  }
  if (is(node, "parenthesized_expression")) {
    return temporary(source, ts_node_named_child(node, 0), scope, at, roots, depth + 1);
  }
  return false;
}

// Whether `node` holds the name or attribute `name`.
bool holds_name(const Source& source, TSNode node, std::string_view name, int depth = 0) {
  if (depth > kMaxDepth || !visit()) return false;
  if ((is(node, "identifier") || is(node, "attribute")) && source.text(node) == name) return true;
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    if (holds_name(source, ts_node_named_child(node, i), name, depth + 1)) return true;
  }
  return false;
}

// Calls that bring a file from elsewhere into a directory.
bool brings_file(std::string_view callee) {
  return names_any(callee, {"extract", "copy", "download", "retrieve", "unpack", "untar", "unzip",
                            "symlink"}) ||
         callee == "move" || callee == "rename" || callee == "replace";
}

// The names and attributes a path is built from (following a name's values
// a few levels), not the functions that build it.
void path_parts(const Source& source, TSNode node, int scope, std::vector<std::string_view>& parts,
                int depth = 0) {
  if (ts_node_is_null(node) || depth > kMaxDepth || !visit()) return;
  if (is(node, "attribute")) {
    parts.push_back(source.text(node));
    return;
  }
  if (is(node, "identifier")) {
    parts.push_back(source.text(node));
    path_parts(source, source.value_of(std::string(source.text(node)), scope), scope, parts,
               depth + 1);
    return;
  }
  if (is(node, "call")) {
    const TSNode function = field(node, "function");
    if (is(function, "attribute"))
      path_parts(source, field(function, "object"), scope, parts, depth + 1);
    path_parts(source, field(node, "arguments"), scope, parts, depth + 1);
    return;
  }
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    path_parts(source, ts_node_named_child(node, i), scope, parts, depth + 1);
  }
}

// The file argument of a torch.save: `f=` or its second.
TSNode save_file(const Source& source, TSNode save) {
  const TSNode f = source.keyword(save, "f");
  if (!ts_node_is_null(f)) return f;
  const std::vector<TSNode> args = source.positional(save);
  return args.size() > 1 ? args[1] : TSNode{};
}

// The text of the string literals a path is built from (`"best_model.pth"`
// of `os.path.join(root, "best_model.pth")`), following names as path_parts
// does.
void path_strings(const Source& source, TSNode node, int scope,
                  std::vector<std::string_view>& strings, int depth = 0) {
  if (ts_node_is_null(node) || depth > kMaxDepth || !visit()) return;
  if (is(node, "string_content")) {
    strings.push_back(source.text(node));
    return;
  }
  if (is(node, "identifier")) {
    path_strings(source, source.value_of(std::string(source.text(node)), scope), scope, strings,
                 depth + 1);
    return;
  }
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    path_strings(source, ts_node_named_child(node, i), scope, strings, depth + 1);
  }
}

// The parameter of `function` (but `self`, `cls`) that `parts` name, and
// its position among them; {"", -1} where none or several do.
std::pair<std::string_view, int> path_parameter(const Source& source, int function,
                                                const std::vector<std::string_view>& parts) {
  const TSNode parameters = field(source.scopes()[function].node, "parameters");
  std::pair<std::string_view, int> found{std::string_view(), -1};
  int position = 0;
  for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (!is(p, "identifier")) {
      p = is(field(p, "name"), "identifier") ? field(p, "name") : ts_node_named_child(p, 0);
    }
    if (!is(p, "identifier")) continue;
    const std::string_view name = source.text(p);
    if (name == "self" || name == "cls") continue;
    if (std::find(parts.begin(), parts.end(), name) != parts.end()) {
      if (found.second >= 0) return {std::string_view(), -1};
      found = {name, position};
    }
    ++position;
  }
  return found;
}

// What `call` hands to the parameter `name` at `position`: a keyword
// argument of that name, else the positional one; null where neither.
TSNode argument_for(const Source& source, TSNode call, std::string_view name, int position) {
  const TSNode keyword = source.keyword(call, name);
  if (!ts_node_is_null(keyword)) return keyword;
  const std::vector<TSNode> args = source.positional(call);
  return position < static_cast<int>(args.size()) ? args[position] : TSNode{};
}

}  // namespace

bool cache_of_own_class(const Source& source, const Call& load, TSNode path) {
  const Question question;
  const TSNode weights_only = source.keyword(load.node, "weights_only");
  const int function = source.function_of(load.scope);
  if (ts_node_is_null(weights_only) || source.text(weights_only) != "False" || function < 0 ||
      source.scopes()[function].owner_class < 0) {
    return false;
  }
  const int owner = source.scopes()[function].owner_class;
  std::vector<std::string_view> read;
  path_parts(source, path, load.scope, read);
  read.erase(std::remove_if(read.begin(), read.end(),
                            [](std::string_view w) { return w.rfind("self.", 0) != 0; }),
             read.end());
  if (read.empty()) return false;
  for (const Call& save : source.calls()) {
    const int saver = source.function_of(save.scope);
    if (save.qualified != "torch.save" || saver < 0 ||
        source.scopes()[saver].owner_class != owner) {
      continue;
    }
    std::vector<std::string_view> written;
    path_parts(source, save_file(source, save.node), save.scope, written);
    for (const Call& move : source.calls()) {
      const std::string_view callee = callee_name(source, move.node);
      if (source.function_of(move.scope) != saver ||
          (callee != "move" && callee != "replace" && callee != "rename")) {
        continue;
      }
      const std::vector<TSNode> args = source.positional(move.node);
      if (!args.empty()) path_parts(source, args.back(), move.scope, written);
    }
    for (const std::string_view w : written) {
      if (std::find(read.begin(), read.end(), w) != read.end()) return true;
    }
  }
  return false;
}

TSNode saved_by_earlier_call(const Source& source, const Call& load, TSNode path) {
  const Question question;
  const int loader = source.function_of(load.scope);
  if (loader < 0) return TSNode{};
  std::vector<std::string_view> read_parts;
  std::vector<std::string_view> read_names;
  path_parts(source, path, load.scope, read_parts);
  path_strings(source, path, load.scope, read_names);
  const auto [load_parameter, load_position] = path_parameter(source, loader, read_parts);
  if (load_position < 0 || read_names.empty()) return TSNode{};
  for (const Call& save : source.calls()) {
    const int saver = source.function_of(save.scope);
    if (save.qualified != "torch.save" || saver < 0 || saver == loader) continue;
    const TSNode file = save_file(source, save.node);
    std::vector<std::string_view> parts;
    std::vector<std::string_view> names;
    path_parts(source, file, save.scope, parts);
    path_strings(source, file, save.scope, names);
    // The same file name, with a '.': not a directory's or a mode's word.
    if (std::none_of(names.begin(), names.end(), [&](std::string_view n) {
          return n.find('.') != std::string_view::npos &&
                 std::find(read_names.begin(), read_names.end(), n) != read_names.end();
        })) {
      continue;
    }
    const auto [save_parameter, save_position] = path_parameter(source, saver, parts);
    if (save_position < 0) continue;
    for (const Call& first : source.calls()) {
      if (!calls_function(source, first.node, saver)) continue;
      const TSNode handed = argument_for(source, first.node, save_parameter, save_position);
      if (ts_node_is_null(handed)) continue;
      for (const Call& then : source.calls()) {
        if (then.scope != first.scope || !calls_function(source, then.node, loader) ||
            !runs_before(first.node, then.node)) {
          continue;
        }
        const TSNode given = argument_for(source, then.node, load_parameter, load_position);
        if (!ts_node_is_null(given) && source.text(given) == source.text(handed)) return save.node;
      }
    }
  }
  return TSNode{};
}

bool runs_before(TSNode earlier, TSNode later) {
  if (ts_node_end_byte(earlier) > ts_node_start_byte(later)) return false;
  for (TSNode n = ts_node_parent(earlier); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "module")) return true;
    if (!is(n, "block")) continue;
    const TSNode owner = ts_node_parent(n);
    const bool always = is(owner, "with_statement") || is(owner, "try_statement") ||
                        is(owner, "for_statement") || is(owner, "while_statement");
    if (!always || within(later, n)) return within(later, n);
  }
  return false;
}

namespace {

// Whether `path`, seen at `at` in `scope`, lies in a temporary directory or
// file made there, and the function around `at` brings no file from
// elsewhere into it before `at` (a copy, an extraction, a download).
bool own_temporary_at(const Source& source, TSNode path, int scope, TSNode at) {
  std::vector<std::string_view> roots;
  if (!temporary(source, path, scope, at, roots)) return false;
  const int function = source.function_of(scope);
  for (const Call& call : source.calls()) {
    if (ts_node_start_byte(call.node) >= ts_node_start_byte(at)) break;
    if (ts_node_end_byte(call.node) > ts_node_start_byte(at) ||
        source.function_of(call.scope) != function ||
        !brings_file(callee_name(source, call.node))) {
      continue;
    }
    for (const std::string_view root : roots) {
      if (holds_name(source, field(call.node, "arguments"), root)) return false;
    }
  }
  return true;
}

// The position of parameter `name` among those of `function` (counting
// `self`), or -1 where it is not a plain one (`*args`, after `*`) or the
// function assigns it.
int parameter_position(const Source& source, int function, std::string_view name) {
  const Scope& f = source.scopes()[function];
  if (f.assigns.count(std::string(name)) != 0) return -1;
  const TSNode parameters = field(f.node, "parameters");
  int position = 0;  // comments and the `/` separator are no parameters
  for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
    TSNode p = ts_node_named_child(parameters, i);
    if (is(p, "comment") || is(p, "positional_separator")) continue;
    if (is(p, "keyword_separator") || is(p, "list_splat_pattern")) return -1;
    if (!is(p, "identifier")) {
      p = is(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name");
    }
    if (is(p, "identifier") && source.text(p) == name) return position;
    ++position;
  }
  return -1;
}

// Whether `path` is a parameter of the load's function (a helper of the file:
// `def _assert_equal(file1, file2): torch.load(file1)`) that every call of it
// in the file gives a path in the caller's own temporary directory
// (`_assert_equal(os.path.join(folder1, "ckpt"), ...)` of `with
// TemporaryDirectory() as tmp:`): what the callers wrote there moments
// before, and nothing else.
bool given_own_temporary(const Source& source, const Call& load, TSNode path) {
  const int function = source.function_of(load.scope);
  if (!is(path, "identifier") || function < 0) return false;
  const int position = parameter_position(source, function, source.text(path));
  const bool method = source.scopes()[function].owner_class >= 0;
  if (position < 0 || (method && position == 0)) return false;
  bool called = false;
  for (const Call& call : source.calls()) {
    if (!calls_function(source, call.node, function)) continue;
    if (source.function_of(call.scope) == function) return false;
    TSNode arg{};
    const TSNode arguments = field(call.node, "arguments");
    for (uint32_t i = 0, n = ts_node_named_child_count(arguments); i < n; ++i) {
      const TSNode a = ts_node_named_child(arguments, i);
      if (is(a, "list_splat") || is(a, "dictionary_splat")) return false;
      if (is(a, "keyword_argument") && source.text(field(a, "name")) == source.text(path)) {
        arg = field(a, "value");
      }
    }
    const std::vector<TSNode> positional = source.positional(call.node);
    const std::size_t index = static_cast<std::size_t>(position) - (method ? 1 : 0);
    if (ts_node_is_null(arg) && index < positional.size()) arg = positional[index];
    if (ts_node_is_null(arg) || !own_temporary_at(source, arg, call.scope, call.node)) {
      return false;
    }
    called = true;
  }
  return called;
}

}  // namespace

bool in_own_temporary(const Source& source, const Call& load, TSNode path) {
  const Question question;
  return own_temporary_at(source, path, load.scope, load.node) ||
         given_own_temporary(source, load, path);
}

bool saved_before_by_same_function(const Source& source, const Call& load, TSNode path) {
  const Question question;
  const int function = source.function_of(load.scope);
  std::vector<std::string_view> parts{source.text(path)};
  path_parts(source, path, load.scope, parts);
  for (const Call& save : source.calls()) {
    if (ts_node_start_byte(save.node) >= ts_node_start_byte(load.node)) break;
    if (save.qualified == "torch.save" || source.function_of(save.scope) != function ||
        !names_any(callee_name(source, save.node), {"save"}) ||
        !runs_before(save.node, load.node)) {
      continue;
    }
    const TSNode arguments = field(save.node, "arguments");
    for (uint32_t i = 0, n = ts_node_named_child_count(arguments); i < n; ++i) {
      TSNode arg = ts_node_named_child(arguments, i);
      if (is(arg, "keyword_argument")) arg = field(arg, "value");
      for (const std::string_view part : parts) {
        if (source.text(arg) == part) return true;
      }
    }
  }
  return false;
}

}  // namespace devcheck::lint::detail
