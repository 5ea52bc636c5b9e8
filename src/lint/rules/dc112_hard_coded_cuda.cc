// DC112 hard-coded-cuda: `.cuda()`, `.to("cuda")` or `device="cuda"` where a
// device variable is defined (at module level or in the same function): the
// line ignores the choice; and `t.type(x.type())`, which lands on the
// current CUDA device, not x's.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

bool is_cuda_text(std::string_view text) { return text.find("cuda") != std::string_view::npos; }

bool cuda_string(const Source& source, TSNode node) {
  return is_cuda_string(string_value(source, node));
}

// Whether a `torch.device(...)` call names the CPU by a literal
// (`torch.device("cpu")`, `torch.device("cpu", 0)`).
bool cpu_literal(const Source& source, TSNode call) {
  const std::vector<TSNode> args = source.positional(call);
  if (args.empty()) return false;
  const std::optional<std::string> s = string_value(source, args[0]);
  return is_cpu_string(s);
}

// Whether an expression is a truth value: a comparison, a `not`, or an
// `and`/`or` that ends in one (`x and "cuda" or "cpu"` picks a string).
bool truth_value(TSNode node) {
  for (;;) {
    while (is(node, "parenthesized_expression")) node = ts_node_named_child(node, 0);
    if (!is(node, "boolean_operator")) break;
    node = field(node, "right");
  }
  return is(node, "comparison_operator") || is(node, "not_operator");
}

// Whether `call` lies in a branch of an `if`/`elif` or a conditional
// expression whose test names CUDA, a GPU or one of the device variables
// (`if device.type == "cuda": model.cuda()`): it follows the choice.
bool under_device_test(const Source& source, const Call& call,
                       const std::vector<std::string>& names) {
  const TSNode node = call.node;
  for (int b = call.branch; b >= 0; b = source.branches()[b].outer) {
    const TSNode n = source.branches()[b].node;
    TSNode test{};
    if (is(n, "if_statement") || is(n, "elif_clause")) {
      test = field(n, "condition");
    } else {
      test = ts_node_named_child(n, 1);  // body `if` test `else` other
    }
    if (ts_node_is_null(test) || (ts_node_start_byte(node) >= ts_node_start_byte(test) &&
                                  ts_node_end_byte(node) <= ts_node_end_byte(test))) {
      continue;  // in the test itself, not governed by it
    }
    const std::string_view text = source.text(test);
    if (names_cuda_or_gpu(text) ||
        std::any_of(names.begin(), names.end(), [&](const std::string& name) {
          return text.find(name) != std::string_view::npos;
        })) {
      return true;
    }
  }
  return false;
}

// Whether moving to CUDA is what the function is for: a class's own
// `cuda()` / `to()` (PackedSequence.cuda), or a function whose name says CUDA
// or a GPU (`to_gpu(obj)`, `_cuda_copy`), which its callers call for that;
// or whether it only runs where CUDA is, for a decorator of it or of its
// class that says so (`@pytest.mark.gpu`, `@unittest.skipIf(not TEST_CUDA,
// ...)`; not a `parametrize` that lists "cuda" among other devices): a
// CUDA-only test places its tensors on CUDA on purpose.
bool made_for_cuda(const Source& source, int function) {
  if (function < 0) return false;
  const std::string_view name = source.scopes()[function].name;
  return name == "to" || names_cuda_or_gpu(name) ||
         in_definition_for_cuda(source, function, /*lists_gate=*/false);
}

// Whether a value names CUDA only by literals: a call whose arguments are
// all literals, one of them "cuda" or "cuda:0", no other index
// (`torch.device("cuda")`, `init_device_mesh("cuda", (2,))`): like
// `device = "cuda"`, it chooses nothing (a `.cuda()` beside it lands on the
// same device).
bool literal_cuda(const Source& source, TSNode value) {
  if (!is(value, "call")) return false;
  const TSNode args = field(value, "arguments");
  bool cuda = false;
  for (uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
    TSNode a = ts_node_named_child(args, i);
    if (is(a, "keyword_argument")) a = field(a, "value");
    if (is(a, "string")) {
      const std::optional<std::string> s = string_value(source, a);
      if (!s) return false;
      cuda = cuda || *s == "cuda" || *s == "cuda:0";
      continue;
    }
    // An index other than 0 (`torch.device("cuda", 1)`) is a choice.
    if (is(a, "integer") && source.text(a) != "0") return false;
    if (is(a, "integer") || is(a, "true") || is(a, "false") || is(a, "none")) continue;
    if (is(a, "tuple") || is(a, "list")) {
      for (uint32_t j = 0, m = ts_node_named_child_count(a); j < m; ++j) {
        if (!is(ts_node_named_child(a, j), "integer")) return false;
      }
      continue;
    }
    return false;
  }
  return cuda;
}

// `.cuda()` with no device, `.to("cuda")`, `device="cuda"` or a legacy CUDA
// constructor (`torch.cuda.FloatTensor(...)`).
bool hard_coded(const Source& source, const Call& call) {
  bool hard = call.method == "cuda" && call.qualified.empty() &&
              ts_node_named_child_count(field(call.node, "arguments")) == 0;
  const std::string_view q = call.qualified;
  hard = hard || (q.rfind("torch.cuda.", 0) == 0 && q.size() > 17 &&
                  q.substr(q.size() - 6) == "Tensor" && q.find('.', 11) == std::string_view::npos);
  if (call.method == "to") {
    const std::vector<TSNode> args = source.positional(call.node);
    hard = !args.empty() && cuda_string(source, args[0]);
  }
  const TSNode dev = source.keyword(call.node, "device");
  return hard || (!ts_node_is_null(dev) && cuda_string(source, dev));
}

// Without a device variable, the choice can be a test: in a function where
// some moves run only under a test of CUDA (`if args.cuda: model.cuda()`),
// one that runs whatever the test said ignores it. And a module's method
// that moves one of its own layers with `.cuda()` puts that layer on the GPU
// whatever device the module is on.
void check_without_variable(const Source& source, Sink& sink) {
  const std::vector<std::string> none;
  std::vector<std::pair<int, TSNode>> guarded;  // function scope, the guarded move
  for (const Call& call : source.calls()) {
    if ((call.method == "cuda" || call.method == "to") && under_device_test(source, call, none)) {
      guarded.emplace_back(source.function_of(call.scope), call.node);
    }
  }
  for (const Call& call : source.calls()) {
    if (!hard_coded(source, call) || under_device_test(source, call, none) ||
        source.has_splat(call.node)) {
      continue;
    }
    const int function = source.function_of(call.scope);
    if (made_for_cuda(source, function)) continue;
    const auto choice = std::find_if(guarded.begin(), guarded.end(), [&](const auto& g) {
      return g.first == function && function >= 0;
    });
    if (choice != guarded.end()) {
      sink.report(call.node, "DC112",
                  "hard-coded CUDA in a function that moves to CUDA only under a test (" +
                      line_of(choice->second) +
                      "): this line ignores that choice and fails where CUDA is absent; "
                      "follow the same test, or use .to(device)");
      continue;
    }
    const int owner = function >= 0 ? source.scopes()[function].owner_class : -1;
    const TSNode parent = ts_node_parent(call.node);
    if (owner < 0 || call.method != "cuda" || !is(parent, "assignment")) continue;
    const TSNode left = field(parent, "left");
    if (!is(left, "attribute") || source.text(field(left, "object")) != "self") continue;
    const auto c = source.classes().find(source.scopes()[owner].name);
    if (c == source.classes().end() || !c->second.is_module) continue;
    sink.report(call.node, "DC112",
                std::string(source.text(left)) +
                    " is moved to CUDA by the module itself: that part goes to the GPU "
                    "whatever device the rest of the module is on (and fails where CUDA is "
                    "absent); let the module's owner move it whole (model.to(device))");
  }
}

// The class a function is a method of (or is defined in a method of), or -1.
int class_of(const Source& source, int function) {
  for (int s = function; s > 0; s = source.scopes()[s].parent) {
    if (source.scopes()[s].owner_class >= 0) return source.scopes()[s].owner_class;
  }
  return -1;
}

// Whether `node` is the device of one of the function's inputs
// (`score.device`, `x.data.device` of a parameter, not `self`'s): the
// function puts what it makes where its caller's tensors are.
bool input_device(const Source& source, TSNode node, int function) {
  if (!is(node, "attribute") || source.text(field(node, "attribute")) != "device") return false;
  TSNode root = field(node, "object");
  while (is(root, "attribute")) root = field(root, "object");
  return is(root, "identifier") && source.text(root) != "self" &&
         parameter_of(source, source.text(root), function);
}

// Whether `node` is a device the function was given or took from what it
// was given: a parameter named as a device that a move goes to
// (`x.to(device)`; not one that defaults to CUDA or is rebound), or a name
// set only to an input's device (`device = x.device`, `device =
// next(model.parameters()).device` of a parameter `model`).
bool chosen_device(const Source& source, TSNode node, int function, bool move) {
  if (input_device(source, node, function)) return true;
  if (!is(node, "identifier")) return false;
  const std::string_view name = source.text(node);
  const auto& assigns = source.scopes()[function].assigns;
  const auto set = assigns.find(std::string(name));
  TSNode default_value{};
  // A test's device (`def test_x(self, device)`) is whatever its runner
  // gives, often CUDA alone: a CUDA line beside it chooses nothing else.
  const std::string_view function_name = source.scopes()[function].name;
  const bool test = function_name.rfind("test", 0) == 0 || function_name.rfind("_test", 0) == 0;
  // Nor one a `for` around the move rebinds (`for device in range(n)`).
  bool looped = false;
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n) && !looped; n = ts_node_parent(n)) {
    if (is(n, "function_definition")) break;
    looped = is(n, "for_statement") && names_any(source.text(field(n, "left")), {name});
  }
  if (move && !test && !looped && is_device_name(name) && set == assigns.end() &&
      parameter_of(source, name, function, &default_value)) {
    return ts_node_is_null(default_value) || !cuda_string(source, default_value);
  }
  if (set == assigns.end() || set->second.empty()) return false;
  for (TSNode value : set->second) {
    if (input_device(source, value, function)) continue;
    // next(model.parameters()).device
    if (!is(value, "attribute") || source.text(field(value, "attribute")) != "device") return false;
    const TSNode object = field(value, "object");
    if (!is(object, "call") || source.text(field(object, "function")) != "next") return false;
    const std::vector<TSNode> args = source.positional(object);
    const TSNode method =
        args.size() == 1 && is(args[0], "call") ? field(args[0], "function") : TSNode{};
    if (!is(method, "attribute") || source.text(field(method, "attribute")) != "parameters" ||
        !parameter_of(source, source.text(field(method, "object")), function)) {
      return false;
    }
  }
  return true;
}

// The classes of the file whose code runs on a device chosen elsewhere:
// a class that keeps a device (`self.device = device`, not a CUDA literal)
// and the classes derived from it in the file, and an nn.Module class the
// file moves to a chosen device (`Net().to(self.device)`): a hard-coded
// CUDA line in their methods ignores that choice.
std::vector<bool> classes_on_chosen_device(const RuleContext& c) {
  const Source& source = c.source;
  std::vector<bool> chosen(source.scopes().size(), false);
  for (const Scope& scope : source.scopes()) {
    if (scope.kind != ScopeKind::kFunction || scope.owner_class < 0) continue;
    for (const auto& [name, values] : scope.assigns) {
      if (name.rfind("self.", 0) != 0 || !is_device_name(std::string_view(name).substr(5)))
        continue;
      for (const TSNode value : values) {
        if (!cuda_string(source, value) && !is_cuda_text(source.text(value)) &&
            !is(value, "none")) {
          chosen[scope.owner_class] = true;
        }
      }
    }
  }
  for (const Move& move : c.flow.moves()) {
    if (move.value.kind != Kind::kModule || move.value.cls < 0 || move.target != Place::kDevice) {
      continue;
    }
    const std::vector<TSNode> args = source.positional(move.call);
    TSNode to = args.empty() ? source.keyword(move.call, "device") : args[0];
    const bool named = is(to, "identifier") || is(to, "attribute");
    if (named && !is_cuda_text(source.text(to))) chosen[move.value.cls] = true;
  }
  // Classes of the file derived from one (a few levels).
  for (int round = 0; round < 3; ++round) {
    for (const auto& [name, info] : source.classes()) {
      if (info.scope < 0 || chosen[info.scope]) continue;
      const TSNode bases = field(source.scopes()[info.scope].node, "superclasses");
      if (ts_node_is_null(bases)) continue;
      for (uint32_t i = 0, n = ts_node_named_child_count(bases); i < n; ++i) {
        const auto base =
            source.classes().find(std::string(source.text(ts_node_named_child(bases, i))));
        if (base != source.classes().end() && base->second.scope >= 0 &&
            chosen[base->second.scope]) {
          chosen[info.scope] = true;
        }
      }
    }
  }
  return chosen;
}

// A hard-coded CUDA line in a function that otherwise follows the device of
// its inputs (`.cuda(score.device)`, `device=x.device` of a parameter), or
// in a method of a class whose code runs on a device chosen elsewhere.
void check_chosen_elsewhere(const RuleContext& c) {
  const Source& source = c.source;
  std::vector<int> follows;  // functions that move to a chosen device
  for (const Call& call : source.calls()) {
    const int function = source.function_of(call.scope);
    TSNode to = source.keyword(call.node, "device");
    if (ts_node_is_null(to) && (call.method == "cuda" || call.method == "to")) {
      const std::vector<TSNode> args = source.positional(call.node);
      if (!args.empty()) to = args[0];
    }
    const bool move = call.method == "cuda" || call.method == "to";
    if (function >= 0 && !ts_node_is_null(to) && chosen_device(source, to, function, move)) {
      follows.push_back(function);
    }
  }
  std::vector<bool> chosen = classes_on_chosen_device(c);
  // A class whose constructor moves to a device it is given (`Net().to(
  // args.device)`) runs on that device in its other methods too.
  for (const int function : follows) {
    const int owner = class_of(source, function);
    if (owner >= 0 && source.scopes()[function].name == "__init__") chosen[owner] = true;
  }
  for (const Call& call : source.calls()) {
    if (!hard_coded(source, call) || source.has_splat(call.node)) continue;
    const int function = source.function_of(call.scope);
    if (function < 0 || made_for_cuda(source, function)) continue;
    const int owner = class_of(source, function);
    const bool follows_here = std::find(follows.begin(), follows.end(), function) != follows.end();
    if (!follows_here && (owner < 0 || !chosen[owner])) continue;
    if (under_device_test(source, call, {})) continue;
    const TSPoint at = ts_node_start_point(call.node);
    const auto& found = c.sink.findings();
    if (std::any_of(found.begin(), found.end(), [&](const Finding& f) {
          return f.rule == "DC112" && f.line == static_cast<int>(at.row) + 1 &&
                 f.column == static_cast<int>(at.column) + 1;
        })) {
      continue;  // reported already, by a device variable or a test
    }
    c.sink.report(call.node, "DC112",
                  follows_here
                      ? "hard-coded CUDA in a function that otherwise follows its inputs' "
                        "device (x.device): this line goes to the current CUDA device instead, "
                        "and fails where theirs is another one or the CPU; use theirs "
                        "(.to(x.device))"
                      : "hard-coded CUDA in a class whose code runs on a device chosen "
                        "elsewhere (it keeps one, or the file moves it to one): this line "
                        "ignores that choice and fails where it is another device or the CPU; "
                        "use that device (.to(self.device), device=x.device)");
  }
}

void check_variables(const RuleContext& c) {
  const Source& source = c.source;
  Sink& sink = c.sink;
  // The device variables' definitions (which may say "cuda"), and the scopes
  // they serve: a module-level one serves the file, a function's its body.
  struct Definition {
    int scope;
    uint32_t start, end;
  };
  std::vector<Definition> definitions;
  std::vector<std::string> names;
  bool no_choice = false;  // a device name that chooses nothing (the CPU, a flag)
  for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
    const Scope& scope = source.scopes()[s];
    if (scope.kind == ScopeKind::kClass) continue;
    for (const auto& [name, values] : scope.assigns) {
      if (!is_device_name(name) || name.rfind("self.", 0) == 0) continue;
      for (TSNode value : values) {
        // `device = "cuda"` chooses nothing: a line saying "cuda" beside it
        // ignores no choice (the code around is CUDA-only anyway).
        if (cuda_string(source, value) || literal_cuda(source, value)) continue;
        const bool torch_device =
            is(value, "call") && source.qualify(field(value, "function")) == "torch.device";
        // `cpu_device = torch.device("cpu")` names the CPU itself, not the
        // device the program runs on: a CUDA line beside it ignores no choice
        // (`device = torch.device("cpu")` is a choice, of the CPU).
        // A flag (`expects_cpu_device = offload and mode != Mode.CUDA_AFTER`)
        // holds no device, whatever it says.
        if ((torch_device && cpu_literal(source, value) && names_any(name, {"cpu"})) ||
            truth_value(value)) {
          no_choice = true;
          continue;
        }
        const bool device = torch_device || is_cuda_text(source.text(value));
        if (device) {
          definitions.push_back({s, ts_node_start_byte(value), ts_node_end_byte(value)});
          names.push_back(name);
        }
      }
    }
  }
  // A file whose device names choose nothing (FSDP's tests: `cpu_device`
  // for the offloaded parameters, a flag of what to expect) places its
  // tensors deliberately: no choice to guess from its tests either.
  if (definitions.empty()) {
    if (!no_choice) check_without_variable(source, sink);
    return;
  }
  for (const Call& call : source.calls()) {
    const int function = source.function_of(call.scope);
    bool served = false;
    bool inside = false;
    for (const Definition& d : definitions) {
      served = served || d.scope == 0 || d.scope == function;
      inside = inside ||
               (ts_node_start_byte(call.node) >= d.start && ts_node_end_byte(call.node) <= d.end);
    }
    if (!served || inside || made_for_cuda(source, function)) continue;
    // `.cuda(rank)` picks a device on purpose; `.cuda()` takes CUDA's default.
    if (!hard_coded(source, call) || under_device_test(source, call, names)) continue;
    sink.report(call.node, "DC112",
                "hard-coded CUDA where a device variable is defined: this line ignores it "
                "and fails where CUDA is absent; use .to(device) / device=device");
  }
}

// Whether `node` is a tensor a torch factory made on the host: the factory
// without device= (nor **kwargs), through methods of its result that keep
// it where it is (`.fill_(v)`, `.float()`), or a name last assigned one.
bool made_on_host(const Source& source, TSNode node, int scope) {
  if (is(node, "identifier")) node = source.value_of(std::string(source.text(node)), scope);
  while (is(node, "call")) {
    const TSNode function = field(node, "function");
    const std::string qualified = source.qualify(function);
    if (is_factory(qualified)) {
      return ts_node_is_null(source.keyword(node, "device")) && !source.has_splat(node);
    }
    if (!is(function, "attribute")) return false;
    const std::string_view method = source.text(field(function, "attribute"));
    if (method == "to" || method == "cuda" || method == "type_as" || method == "type" ||
        method.rfind("new_", 0) == 0) {
      return false;
    }
    node = field(function, "object");
  }
  return false;
}

// `torch.cuda.set_device(args.gpu)`, then `torch.device("cuda")`, in a file
// that runs work in other threads: the current device is per thread, so
// "cuda" there is cuda:0, not the GPU set_device chose
// (TadaoYamaoka/DeepLearningShogi#40: batches moved in a prefetch thread).
// `t.type(x.type())`: the type string of a CUDA tensor ("torch.cuda.
// FloatTensor") names no device index, so the result is on the current
// device, cuda:0, wherever x is (MONAI's adversarial loss's labels on
// cuda:0 beside a discriminator's output on cuda:1). Not when the result is
// moved at once (`.to(x.device)`), nor in a test (`def test_x(self,
// device)`), which compares the result with what it expects wherever each is.
void check_type_of_other(const RuleContext& c, const Call& call) {
  if (call.method != "type" || call.moved) return;
  const int function = c.source.function_of(call.scope);
  if (function >= 0 && c.source.scopes()[function].name.rfind("test", 0) == 0) return;
  const std::vector<TSNode> args = c.source.positional(call.node);
  if (args.size() != 1 || !is(args[0], "call")) return;
  const TSNode inner = field(args[0], "function");
  const TSNode inner_args = field(args[0], "arguments");
  if (!is(inner, "attribute") || c.source.text(field(inner, "attribute")) != "type" ||
      ts_node_named_child_count(inner_args) != 0) {
    return;
  }
  // Tensor.type(string) keeps the tensor's own device (index too) where the
  // string names its device type; only a tensor of another type, a host one,
  // lands on the current device. So only a receiver made on the host counts:
  // a factory without device= (through its in-place and dtype methods, or a
  // name assigned it); one already placed (`torch.zeros(n,
  // device=w.device)`, `t.to(w.device)`, `w.new_zeros(n)`, timm's
  // merge_pre_bn) or computed from other tensors (DeepSpeed's `(x >
  // t).type(x.type())`) is where they are.
  if (!made_on_host(c.source, call.object, call.scope)) return;
  const std::string other(c.source.text(field(inner, "object")));
  c.sink.report(call.node, "DC112",
                ".type(" + other +
                    ".type()) of a CUDA tensor's type string, which names no "
                    "device index: the result is on the current device (cuda:0), not on " +
                    other + "'s device; use .to(" + other + ".device, " + other + ".dtype)");
}

void check_set_device_in_threads(const RuleContext& c) {
  const Source& source = c.source;
  TSNode chosen{};
  bool threads = false;
  for (const Call& call : source.calls()) {
    check_type_of_other(c, call);
    if (call.qualified == "torch.cuda.set_device") {
      const std::vector<TSNode> args = source.positional(call.node);
      if (!args.empty() && !is(args[0], "integer")) chosen = call.node;
    }
    threads = threads || call.qualified == "concurrent.futures.ThreadPoolExecutor" ||
              call.qualified == "threading.Thread";
  }
  if (ts_node_is_null(chosen) || !threads) return;
  for (const Call& call : source.calls()) {
    if (call.qualified != "torch.device") continue;
    const std::vector<TSNode> args = source.positional(call.node);
    if (args.size() != 1 || string_value(source, args[0]) != std::optional<std::string>("cuda") ||
        !ts_node_is_null(source.keyword(call.node, "index"))) {
      continue;
    }
    c.sink.report(call.node, "DC112",
                  "torch.device(\"cuda\") after torch.cuda.set_device(...) (" + line_of(chosen) +
                      ") in a file that runs work in other threads: the current device is per "
                      "thread, so there this is cuda:0, not the GPU chosen; name it: "
                      "torch.device(f\"cuda:{gpu}\")");
  }
}

// The tensor whose place `test` asks (`adj` of `adj.is_cuda`, of
// `adj.device.type == "cuda"`), or a null node.
TSNode tested_tensor(const Source& source, TSNode test) {
  if (is(test, "attribute") && source.text(field(test, "attribute")) == "is_cuda") {
    return field(test, "object");
  }
  if (!is(test, "comparison_operator") || ts_node_named_child_count(test) != 2) return TSNode{};
  const TSNode left = ts_node_named_child(test, 0);
  if (string_value(source, ts_node_named_child(test, 1)) != "cuda" || !is(left, "attribute") ||
      source.text(field(left, "attribute")) != "type") {
    return TSNode{};
  }
  const TSNode device = field(left, "object");
  return is(device, "attribute") && source.text(field(device, "attribute")) == "device"
             ? field(device, "object")
             : TSNode{};
}

// `"cuda" if adj.is_cuda else "cpu"`: a device chosen by where a tensor is,
// named by the bare "cuda", which is the current device (cuda:0 unless
// set_device says otherwise), not the tensor's: on another GPU the two
// differ. Where the choice is made: in an assignment, `torch.device(...)`,
// `.to(...)` or `device=`.
void check_cuda_of_a_tensor(const RuleContext& c) {
  // Only a file that writes the choice (`"cuda" if x.is_cuda`, `'cuda' if
  // x.device.type == "cuda"`) is read further: the walk below visits every
  // call's arguments.
  const std::string_view text = c.source.text(c.source.root());
  if ((text.find("\"cuda\" if") == std::string_view::npos &&
       text.find("'cuda' if") == std::string_view::npos) ||
      (text.find("is_cuda") == std::string_view::npos &&
       text.find("type ==") == std::string_view::npos)) {
    return;
  }
  std::vector<TSNode> choices;
  for (const Scope& scope : c.source.scopes()) {
    for (const auto& [name, values] : scope.assigns) {
      for (const TSNode value : values) {
        if (is(value, "conditional_expression")) choices.push_back(value);
      }
    }
  }
  for (const Call& call : c.source.calls()) {
    // The first positional argument, or `device=`.
    const TSNode args = field(call.node, "arguments");
    bool first = true;
    for (uint32_t i = 0, n = ts_node_named_child_count(args); i < n; ++i) {
      const TSNode arg = ts_node_named_child(args, i);
      if (is(arg, "keyword_argument")) {
        const TSNode value = field(arg, "value");
        if (is(value, "conditional_expression") && c.source.text(field(arg, "name")) == "device") {
          choices.push_back(value);
        }
      } else if (first) {
        first = false;
        if (is(arg, "conditional_expression")) choices.push_back(arg);
      }
    }
  }
  std::vector<uint32_t> done;
  for (const TSNode choice : choices) {
    if (ts_node_is_null(choice) || !is(choice, "conditional_expression") ||
        ts_node_named_child_count(choice) != 3) {
      continue;
    }
    TSNode cuda = ts_node_named_child(choice, 0);
    if (is(cuda, "call") && c.source.qualify(field(cuda, "function")) == "torch.device" &&
        c.source.positional(cuda).size() == 1) {
      cuda = c.source.positional(cuda)[0];
    }
    const TSNode tensor = tested_tensor(c.source, ts_node_named_child(choice, 1));
    if (ts_node_is_null(tensor) || string_value(c.source, cuda) != "cuda" ||
        std::find(done.begin(), done.end(), ts_node_start_byte(choice)) != done.end()) {
      continue;
    }
    done.push_back(ts_node_start_byte(choice));
    const std::string name(c.source.text(tensor));
    std::string message = "\"cuda\" chosen because ";
    message += name;
    message +=
        " is on a GPU names the current CUDA device (cuda:0 unless set_device says "
        "otherwise), not ";
    message += name;
    message += "'s: on another GPU the two differ; use ";
    message += name;
    message += ".device";
    c.sink.report(choice, "DC112", std::move(message));
  }
}

void check(const RuleContext& c) {
  check_cuda_of_a_tensor(c);
  check_variables(c);
  check_chosen_elsewhere(c);
  check_set_device_in_threads(c);
}

}  // namespace

extern const Rule kRuleDC112;
const Rule kRuleDC112 = {
    {"DC112", "hard-coded-cuda",
     "Hard-coded CUDA where the code chooses a device (a variable, a test).", false},
    "import torch\n"
    "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
    "x = torch.zeros(3).cuda()\n",
    "import torch\n"
    "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
    "x = torch.zeros(3, device=device)\n",
    check};

}  // namespace devcheck::lint::detail
