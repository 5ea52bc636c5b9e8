// DC105 load-without-map-location: torch.load(f) without map_location (and
// OpenMMLab's checkpoint loaders, which pass theirs, None by default, to it).
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "../common.h"
#include "../rule.h"
#include "host_files.h"
#include "written_here.h"

namespace devcheck::lint::detail {
namespace {

// A state dict, as saved: `m.state_dict()`, a dict written out or a
// comprehension, or a name that holds one. Only tensors, numbers and strings:
// what weights_only=True reads.
bool is_state(const Source& source, TSNode value, int scope) {
  if (is(value, "identifier")) {
    // The name's last value before the save (in its scope, else an enclosing one).
    const std::string name(source.text(value));
    const uint32_t at = ts_node_start_byte(value);
    value = TSNode{};
    for (int s = scope; s >= 0 && ts_node_is_null(value); s = source.scopes()[s].parent) {
      const auto found = source.scopes()[s].assigns.find(name);
      if (found == source.scopes()[s].assigns.end()) continue;
      for (const TSNode rhs : found->second) {
        if (s != scope || ts_node_start_byte(rhs) < at) value = rhs;
      }
    }
  }
  if (is(value, "dictionary") || is(value, "dictionary_comprehension")) return true;
  if (!is(value, "call")) return false;
  const TSNode function = field(value, "function");
  return is(function, "attribute") && source.text(field(function, "attribute")) == "state_dict";
}

// What the last torch.save to the load's file wrote, when the same function
// (or the module's code, where it runs before the load: runs_before) saved
// it there before the load, to the same text (`torch.save(m.state_dict(), b);
// b.seek(0); torch.load(b)`).
enum class SavedBefore {
  kNothing,
  // A state dict (or anything, where the load says `weights_only=False`;
  // what a load hands to `load_state_dict` is one):
  // in the same process the tensors come back to the devices they were
  // saved from, which it has, and weights_only=True reads them (not the
  // rare state dict that holds a ScriptObject: a miss).
  kState,
  // A whole object: torch 2.6's weights_only default refuses it.
  kWhole,
};
SavedBefore saved_before(const Source& source, const Call& load) {
  const TSNode file = file_argument(source, load.node, 0);
  const int function = source.function_of(load.scope);
  if (ts_node_is_null(file)) return SavedBefore::kNothing;
  const TSNode weights_only = source.keyword(load.node, "weights_only");
  const bool unpickles = !ts_node_is_null(weights_only) && source.text(weights_only) == "False";
  // What `m.load_state_dict(torch.load(f))` reads is a state dict, whatever
  // name the save gave it (diffusers' converters save a `checkpoint`
  // parameter to a temporary file and load it back so).
  const TSNode up = ts_node_parent(ts_node_parent(load.node));
  const bool into_state_dict =
      is(up, "call") && is(field(up, "function"), "attribute") &&
      source.text(field(field(up, "function"), "attribute")) == "load_state_dict";
  // The last save to that file before the load is what it reads.
  SavedBefore found = SavedBefore::kNothing;
  for (const Call& save : source.calls()) {
    if (ts_node_start_byte(save.node) >= ts_node_start_byte(load.node)) break;
    if (save.qualified != "torch.save" || source.function_of(save.scope) != function ||
        (function < 0 && !runs_before(save.node, load.node))) {
      continue;
    }
    const TSNode saved_to = file_argument(source, save.node, 1);
    if (ts_node_is_null(saved_to) || source.text(saved_to) != source.text(file)) continue;
    const std::vector<TSNode> args = source.positional(save.node);
    TSNode saved = source.keyword(save.node, "obj");
    if (ts_node_is_null(saved) && !args.empty()) saved = args[0];
    if (ts_node_is_null(saved)) continue;
    found = unpickles || is_state(source, saved, save.scope) || into_state_dict
                ? SavedBefore::kState
                : SavedBefore::kWhole;
  }
  return found;
}

// Whether `load` reads what this process wrote itself, and torch 2.6's
// default reads it: a state dict saved before it to the same file
// (saved_before), or a file in a temporary directory of its own or one a
// save of the same function wrote (written_here.h), unless a torch.save of
// the function wrote a whole object there.
bool reads_own_file(const Source& source, const Call& load) {
  const SavedBefore saved = saved_before(source, load);
  if (saved != SavedBefore::kNothing) return saved == SavedBefore::kState;
  const TSNode file = file_argument(source, load.node, 0);
  if (ts_node_is_null(file)) return false;
  if (in_own_temporary(source, load, file) || saved_before_by_same_function(source, load, file) ||
      cache_of_own_class(source, load, file)) {
    return true;
  }
  // A state dict another function saved, run just before by the same caller.
  const TSNode save = saved_by_earlier_call(source, load, file);
  if (ts_node_is_null(save)) return false;
  const std::vector<TSNode> args = source.positional(save);
  TSNode object = source.keyword(save, "obj");
  if (ts_node_is_null(object) && !args.empty()) object = args[0];
  return !ts_node_is_null(object) && is_state(source, object, source.scope_of(object));
}

// Whether `node` is an argument of an assertion (`assert_close(...)`,
// `self.assertEqual(...)`) or inside an `assert` statement, within its
// function.
bool in_assertion(const Source& source, TSNode node) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition") || is(n, "block")) return false;
    if (is(n, "assert_statement")) return true;
    if (!is(n, "call")) continue;
    const TSNode function = field(n, "function");
    const TSNode last = is(function, "attribute") ? field(function, "attribute") : function;
    if (within(node, field(n, "arguments")) && names_any(source.text(last), {"assert"})) {
      return true;
    }
  }
  return false;
}

// Whether the result of `load` is only compared: the load is an argument of
// an assertion, or the name it is assigned to is read only inside
// assertions, never called nor asked for a module's parts (`m(x)`,
// `m.state_dict()`): a test's expected values.
bool only_compared(const Source& source, const Call& load) {
  if (in_assertion(source, load.node)) return true;
  const TSNode parent = ts_node_parent(load.node);
  if (!is(parent, "assignment") || !is(field(parent, "left"), "identifier")) return false;
  const std::string_view name = source.text(field(parent, "left"));
  const int function = source.function_of(load.scope);
  if (function < 0) return false;
  int reads = 0;
  bool other = false;
  std::vector<TSNode> stack{source.scopes()[function].node};
  while (!stack.empty() && !other) {
    const TSNode n = stack.back();
    stack.pop_back();
    if (is(n, "identifier") && source.text(n) == name &&
        ts_node_start_byte(n) > ts_node_end_byte(parent)) {
      const TSNode up = ts_node_parent(n);
      const bool called = is(up, "call") && ts_node_eq(field(up, "function"), n);
      const bool module_part = is(up, "attribute") && ts_node_eq(field(up, "object"), n) &&
                               names_any(source.text(field(up, "attribute")),
                                         {"state_dict", "parameters", "buffers", "modules",
                                          "children", "forward", "eval", "train"});
      const bool assigned = is(up, "assignment") && ts_node_eq(field(up, "left"), n);
      other = called || module_part || assigned || !in_assertion(source, n);
      ++reads;
      continue;
    }
    for (uint32_t i = 0, k = ts_node_named_child_count(n); i < k; ++i) {
      stack.push_back(ts_node_named_child(n, i));
    }
  }
  return reads > 0 && !other;
}

// The words of a path that name one file of the project: `self.x`, a
// module-level name, or a function of the file that makes the path
// (`_get_expected_file(name)`).
std::vector<std::string_view> file_words(const Source& source, TSNode path, int scope) {
  std::vector<std::string_view> words;
  path_words(source, path, scope, words);
  const auto& constants = source.scopes()[0].assigns;
  const auto names_file = [&](std::string_view w) {
    if (w.rfind("self.", 0) == 0 || constants.count(std::string(w)) != 0) return true;
    return std::any_of(source.scopes().begin(), source.scopes().end(), [&](const Scope& s) {
      return s.kind == ScopeKind::kFunction && s.name == w;
    });
  };
  words.erase(std::remove_if(words.begin(), words.end(), [&](auto w) { return !names_file(w); }),
              words.end());
  return words;
}

// Whether `a` and `b` lie in different branches of one `if` (`if ACCEPT:
// torch.save(...)` / `else: torch.load(...)`): never in one run.
bool other_branches(TSNode a, TSNode b) {
  for (TSNode n = a; !ts_node_is_null(n); n = ts_node_parent(n)) {
    const TSNode parent = ts_node_parent(n);
    if (is(n, "function_definition")) return false;
    const bool branch = (is(parent, "if_statement") && is(n, "block")) || is(n, "elif_clause") ||
                        is(n, "else_clause");
    if (branch && within(b, is(parent, "if_statement") ? parent : ts_node_parent(parent)) &&
        !within(b, n)) {
      return true;
    }
  }
  return false;
}

// Whether `saved` reads as a module: a name or attribute that says so
// (`model`, `self.net`), or one holding a torch.nn layer or a module class
// of the file.
bool saves_a_module(const Source& source, TSNode saved, int scope) {
  if (names_any(source.text(saved), {"model", "net", "module"})) return true;
  const TSNode value = value_of_object(source, saved, scope);
  if (!is(value, "call")) return false;
  const TSNode function = field(value, "function");
  if (source.qualify(function).rfind("torch.nn.", 0) == 0) return true;
  const auto cls = source.classes().find(std::string(source.text(function)));
  return cls != source.classes().end() && cls->second.is_module;
}

// Whether `load` reads a test's expected values: a file this file writes
// itself with torch.save (both paths made alike: the same `self.x`,
// module-level name or path function of the file, `_get_expected_file(name)`,
// or in one function the same name), saved in another function or in another
// branch of an `if` (a save just before the load in one function is
// saved_before's), and whose contents are only compared. The test records what it compares
// (`if ACCEPT: torch.save(output, f)` / `else: assert_close(output,
// torch.load(f))`): made by the code that makes what it is compared with.
// Not a module saved so (torch 2.6's default refuses it).
bool expected_values(const Source& source, const Call& load) {
  const TSNode file = file_argument(source, load.node, 0);
  if (ts_node_is_null(file)) return false;
  const std::vector<std::string_view> read = file_words(source, file, load.scope);
  const int function = source.function_of(load.scope);
  for (const Call& save : source.calls()) {
    if (save.qualified != "torch.save") continue;
    const TSNode written = written_path(source, save.node);
    const bool same_function = source.function_of(save.scope) == function;
    if (same_function && !other_branches(save.node, load.node)) continue;
    bool same_file =
        same_function && is(written, "identifier") && source.text(written) == source.text(file);
    for (const std::string_view w : file_words(source, written, save.scope)) {
      same_file = same_file || std::find(read.begin(), read.end(), w) != read.end();
    }
    if (!same_file) continue;
    const std::vector<TSNode> args = source.positional(save.node);
    TSNode saved = source.keyword(save.node, "obj");
    if (ts_node_is_null(saved) && !args.empty()) saved = args[0];
    return !ts_node_is_null(saved) && !saves_a_module(source, saved, save.scope) &&
           only_compared(source, load);
  }
  return false;
}

// A function of the file that loads with the map_location its caller passes
// (`def load_state(path, map_location=None): return torch.load(path,
// map_location)`), directly or through another such function: its scope,
// the parameter's name and position (counting `self`), and the load.
struct Loader {
  int scope;
  std::string_view parameter;
  int position;
  TSNode load;
};

// A parameter after `*` or `*args`: no positional argument fills it.
constexpr int kKeywordOnly = 1 << 20;

// The position of parameter `name` of `function` when its default is None
// and the body never assigns it; -1 otherwise.
int none_default_parameter(const Source& source, int function, std::string_view name) {
  const Scope& scope = source.scopes()[function];
  if (scope.assigns.count(std::string(name)) != 0) return -1;
  const TSNode parameters = field(scope.node, "parameters");
  bool keyword_only = false;
  for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
    const TSNode p = ts_node_named_child(parameters, i);
    keyword_only = keyword_only || is(p, "keyword_separator") || is(p, "list_splat_pattern");
    if ((is(p, "default_parameter") || is(p, "typed_default_parameter")) &&
        source.text(field(p, "name")) == name) {
      if (!is(field(p, "value"), "none")) return -1;
      return keyword_only ? kKeywordOnly : static_cast<int>(i);
    }
  }
  return -1;
}

// What a call passes to parameter `name` at `position` of its callee
// (`self.f(a)` fills position 1 of `def f(self, x)`): null when nothing,
// or a splat may.
TSNode passed(const Source& source, const Call& call, const Loader& loader, bool& splat) {
  splat = source.has_splat(call.node);
  const TSNode keyword = source.keyword(call.node, loader.parameter);
  if (!ts_node_is_null(keyword)) return keyword;
  const Scope& callee = source.scopes()[loader.scope];
  const bool method = callee.owner_class >= 0;
  const int index = loader.position - (method ? 1 : 0);
  const std::vector<TSNode> args = source.positional(call.node);
  return index >= 0 && index < static_cast<int>(args.size()) ? args[index] : TSNode{};
}

// The calls of `loader`'s function: by its name where the file has one
// function (or method) of that name alone; a method on `self`, `cls` or a
// class of the file.
bool calls_loader(const Source& source, const Call& call, const Loader& loader) {
  const Scope& callee = source.scopes()[loader.scope];
  const TSNode function = field(call.node, "function");
  const bool method = callee.owner_class >= 0;
  if (method) {
    const std::string object(is(call.object, "identifier") ? source.text(call.object) : "");
    if (call.method != callee.name ||
        (object != "self" && object != "cls" && source.classes().count(object) == 0)) {
      return false;
    }
  } else if (!(is(function, "identifier") && source.text(function) == callee.name)) {
    return false;
  }
  int same = 0;
  for (const Scope& scope : source.scopes()) {
    same += scope.kind == ScopeKind::kFunction && scope.name == callee.name ? 1 : 0;
  }
  return same == 1;
}

// The file's loaders: functions whose torch.load takes its map_location
// from a parameter that defaults to None, then the functions that hand
// theirs (also defaulting to None) to one.
std::vector<Loader> loaders(const Source& source) {
  std::vector<Loader> out;
  for (const Call& call : source.calls()) {
    if (call.qualified != "torch.load") continue;
    const int function = source.function_of(call.scope);
    if (function < 0) continue;
    TSNode given = source.keyword(call.node, "map_location");
    const std::vector<TSNode> args = source.positional(call.node);
    if (ts_node_is_null(given) && args.size() >= 2) given = args[1];
    if (!is(given, "identifier")) continue;
    const int position = none_default_parameter(source, function, source.text(given));
    if (position >= 0) out.push_back({function, source.text(given), position, call.node});
  }
  for (std::size_t i = 0; i < out.size() && out.size() < 16; ++i) {
    for (const Call& call : source.calls()) {
      const int function = source.function_of(call.scope);
      if (function < 0 || function == out[i].scope || !calls_loader(source, call, out[i])) continue;
      bool splat = false;
      const TSNode given = passed(source, call, out[i], splat);
      if (!is(given, "identifier")) continue;
      const int position = none_default_parameter(source, function, source.text(given));
      const bool known =
          std::any_of(out.begin(), out.end(), [&](const Loader& l) { return l.scope == function; });
      if (position >= 0 && !known) {
        out.push_back({function, source.text(given), position, out[i].load});
      }
    }
  }
  return out;
}

// A call of a loader that passes no map_location: its torch.load runs
// without one (flambe's `load_from_path` calling `load_state(path)`).
void check_loader_calls(const RuleContext& c) {
  const std::vector<Loader> found = loaders(c.source);
  for (const Loader& loader : found) {
    for (const Call& call : c.source.calls()) {
      if (!calls_loader(c.source, call, loader)) continue;
      bool splat = false;
      if (!ts_node_is_null(passed(c.source, call, loader, splat)) || splat) continue;
      c.sink.report(
          call.node, "DC105",
          c.source.scopes()[loader.scope].name +
              "(...) without map_location loads with torch.load(..., map_location=None) (" +
              line_of(loader.load) +
              "): tensors saved on a GPU fail to load where that device is missing; "
              "pass " +
              std::string(loader.parameter) + "=\"cpu\" (or the target device)");
    }
  }
}

// OpenMMLab's checkpoint loaders (mmengine's, and mmcv's before it), whose
// map_location defaults to None and goes to torch.load as it is: the
// function and the position of map_location among its arguments.
struct LibraryLoader {
  std::string_view qualified;
  std::size_t position;
};
constexpr std::array<LibraryLoader, 10> kLibraryLoaders = {{
    {"mmengine.runner.load_checkpoint", 2},
    {"mmengine.runner.checkpoint.load_checkpoint", 2},
    {"mmengine.runner.checkpoint._load_checkpoint", 1},
    {"mmengine.runner.CheckpointLoader.load_checkpoint", 1},
    {"mmengine.runner.checkpoint.CheckpointLoader.load_checkpoint", 1},
    {"mmcv.runner.load_checkpoint", 2},
    {"mmcv.runner.checkpoint.load_checkpoint", 2},
    {"mmcv.runner.checkpoint._load_checkpoint", 1},
    {"mmcv.runner._load_checkpoint", 1},
    {"mmcv.runner.CheckpointLoader.load_checkpoint", 1},
}};

void check_library_loaders(const RuleContext& c, const Call& call) {
  for (const LibraryLoader& l : kLibraryLoaders) {
    if (call.qualified != l.qualified) continue;
    if (c.source.has_splat(call.node) ||
        !ts_node_is_null(c.source.keyword(call.node, "map_location")) ||
        c.source.positional(call.node).size() > l.position) {
      return;
    }
    const std::string_view name = l.qualified.substr(l.qualified.rfind('.') + 1);
    c.sink.report(call.node, "DC105",
                  std::string(name) +
                      "(...) without map_location loads with torch.load(..., "
                      "map_location=None): tensors saved on a GPU load onto that GPU (each "
                      "process of a multi-GPU run on GPU 0) or fail where it is missing; pass "
                      "map_location=\"cpu\" (or the target device)");
    return;
  }
}

void check(const RuleContext& c) {
  check_loader_calls(c);
  for (const Call& call : c.source.calls()) {
    if (call.qualified.rfind("mm", 0) == 0) check_library_loaders(c, call);
    if (call.qualified != "torch.load" || c.source.has_splat(call.node)) continue;
    if (!ts_node_is_null(c.source.keyword(call.node, "map_location")) ||
        c.source.positional(call.node).size() >= 2 || reads_own_file(c.source, call) ||
        written_here_on_host(c.source, call) || expected_values(c.source, call) ||
        reads_own_class_state(c.source, call) ||
        written_by_called_function_on_host(c.source, call) || saved_from_host(c.source, call) ||
        returned_as_numpy(c.source, call)) {
      continue;
    }
    // Where weights_only= is given already, only map_location is asked for.
    const bool weights_only = !ts_node_is_null(c.source.keyword(call.node, "weights_only"));
    c.sink.report(call.node, "DC105",
                  std::string("torch.load without map_location: tensors saved on a GPU fail to "
                              "load where that device is missing; pass map_location=\"cpu\" (or "
                              "the target device)") +
                      (weights_only ? ""
                                    : " and weights_only= explicitly (its default changed in "
                                      "torch 2.6)"));
  }
}

}  // namespace

extern const Rule kRuleDC105;
const Rule kRuleDC105 = {
    {"DC105", "load-without-map-location", "torch.load without map_location.", false},
    "import torch\n"
    "state = torch.load(\"model.pt\")\n",
    "import torch\n"
    "state = torch.load(\"model.pt\", map_location=\"cpu\", weights_only=True)\n",
    check};

}  // namespace devcheck::lint::detail
