// DC104 wrapped-before-move: DistributedDataParallel(model) built before the
// model is on its device: moved only after the wrap, or (with device_ids)
// never moved at all. DDP takes the parameters' devices when it is built.
// And DataParallel(model, device_ids=ids).cuda(): moved after the wrap to
// the current device, which need not be device_ids[0].
#include <algorithm>
#include <string>
#include <vector>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// torch's DistributedDataParallel, or a wrapper of it under another name
// whose class says so (mmcv's `MMDistributedDataParallel`): built, it takes
// the parameters' devices and broadcasts them as torch's does.
bool is_ddp(const Call& call) {
  const std::string_view q = call.qualified;
  constexpr std::string_view kDdp = "DistributedDataParallel";
  if (q.size() <= kDdp.size() || q.compare(q.size() - kDdp.size(), kDdp.size(), kDdp) != 0) {
    return false;
  }
  return q == "torch.nn.parallel.DistributedDataParallel" ||
         q == "torch.nn.parallel.distributed.DistributedDataParallel" || q.rfind("torch.", 0) != 0;
}

// `DistributedDataParallel(model).cuda()`: the wrapper moved as it is made.
TSNode moved_at_once(const Source& source, const Call& call) {
  const TSNode attribute = ts_node_parent(call.node);
  if (!call.moved || !is(attribute, "attribute") ||
      !ts_node_eq(field(attribute, "object"), call.node)) {
    return TSNode{};
  }
  const TSNode move = ts_node_parent(attribute);
  const std::string_view method = source.text(field(attribute, "attribute"));
  if (!is(move, "call") || (method != "to" && method != "cuda")) return TSNode{};
  const std::vector<TSNode> args = source.positional(move);
  if (!args.empty() && is_cpu_string(string_value(source, args[0]))) return TSNode{};
  return move;
}

// Moved only after the wrap, in the same scope: `ddp = DDP(model)`, then
// `model.to(device)` or `ddp.to(device)`.
bool moved_after(const RuleContext& c, const Call& call) {
  const std::vector<TSNode> args = c.source.positional(call.node);
  if (args.empty() || !is(args[0], "identifier")) return false;
  const std::string_view model = c.source.text(args[0]);
  const uint32_t at = ts_node_start_byte(call.node);
  std::string_view wrapper;
  const TSNode parent = ts_node_parent(call.node);
  if (is(parent, "assignment") && is(field(parent, "left"), "identifier")) {
    wrapper = c.source.text(field(parent, "left"));
  }
  bool before = false;
  TSNode after = moved_at_once(c.source, call);
  for (const Call& move : c.source.calls()) {
    if ((move.method != "to" && move.method != "cuda") || move.scope != call.scope ||
        !is(move.object, "identifier")) {
      continue;
    }
    const std::string_view name = c.source.text(move.object);
    const uint32_t where = ts_node_start_byte(move.node);
    if (name == model && where < at) before = true;
    if ((name == model || (!wrapper.empty() && name == wrapper)) && where > at &&
        ts_node_is_null(after)) {
      after = move.node;
    }
  }
  if (before || ts_node_is_null(after)) return false;
  const std::string wrap(c.source.text(field(call.node, "function")));
  c.sink.report(call.node, "DC104",
                wrap + "(" + std::string(model) +
                    ") is built before the model is on its device (it is moved only after, " +
                    line_of(after) + "): move it first: " + wrap + "(" + std::string(model) +
                    ".to(device), device_ids=[...])");
  return true;
}

bool is_data_parallel(std::string_view q) {
  return q == "torch.nn.DataParallel" || q == "torch.nn.parallel.DataParallel" ||
         q == "torch.nn.parallel.data_parallel.DataParallel";
}

// `DataParallel(model, device_ids=ids).cuda()`: the bare .cuda() puts the
// model on the current device (cuda:0 unless set_device says otherwise),
// and DataParallel needs it on device_ids[0]. Not where the ids are a
// literal list from 0, nor where the code calls torch.cuda.set_device.
void data_parallel_then_cuda(const RuleContext& c, const Call& call) {
  TSNode ids = c.source.keyword(call.node, "device_ids");
  if (ts_node_is_null(ids)) {
    const std::vector<TSNode> args = c.source.positional(call.node);
    if (args.size() >= 2) ids = args[1];
  }
  if (ts_node_is_null(ids) || is(ids, "none")) return;
  if ((is(ids, "list") || is(ids, "tuple")) &&
      (ts_node_named_child_count(ids) == 0 || c.source.text(ts_node_named_child(ids, 0)) == "0")) {
    return;
  }
  // The wrapper moved by a bare .cuda() (or .to("cuda")) in the same
  // expression.
  const TSNode attribute = ts_node_parent(call.node);
  if (!is(attribute, "attribute")) return;
  const TSNode move = ts_node_parent(attribute);
  if (!is(move, "call")) return;
  const std::string_view method = c.source.text(field(attribute, "attribute"));
  const std::vector<TSNode> move_args = c.source.positional(move);
  const bool bare = (method == "cuda" && move_args.empty() &&
                     ts_node_is_null(c.source.keyword(move, "device"))) ||
                    (method == "to" && move_args.size() == 1 &&
                     string_value(c.source, move_args[0]) == std::optional<std::string>("cuda"));
  if (!bare) return;
  for (const Call& other : c.source.calls()) {
    if (other.method == "set_device" || other.qualified == "torch.cuda.set_device") return;
  }
  const std::string ids_text(c.source.text(ids));
  c.sink.report(call.node, "DC104",
                "DataParallel(..., device_ids=" + ids_text + ")." + std::string(method) +
                    "(...) moves the model to the current CUDA device (cuda:0), and DataParallel "
                    "needs it on device_ids[0]: it fails where the first id is not 0; move it "
                    "there first: DataParallel(model.cuda(" +
                    ids_text + "[0]), device_ids=" + ids_text + ")");
}

// Whether `node` is in the body of an `if` (`elif`) or a conditional
// expression whose test names CUDA or a GPU (`if cuda: model =
// DataParallel(model)`): it is wrapped only where the program runs on one.
bool wrapped_under_cuda_test(const Source& source, TSNode node) {
  TSNode inner = node;
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); inner = n, n = ts_node_parent(n)) {
    if (is(n, "function_definition")) return false;
    TSNode test{};
    if ((is(n, "if_statement") || is(n, "elif_clause")) &&
        ts_node_eq(field(n, "consequence"), inner)) {
      test = field(n, "condition");
    } else if (is(n, "conditional_expression") && ts_node_eq(ts_node_named_child(n, 0), inner)) {
      test = ts_node_named_child(n, 1);  // body `if` test `else` other
    }
    if (!ts_node_is_null(test) && names_cuda_or_gpu(source.text(test))) return true;
  }
  return false;
}

// Whether the wrap `node` is only data whose forward nothing runs: an item of
// a list, tuple or dict literal (a test's cases, `[DataParallel(PReLU()),
// ["weight"]]`), or handed straight to a save (`save_state(DataParallel(m),
// path)`, `torch.save(...)`), or asked only for its `state_dict()`: its
// state is read, the wrapper never called.
bool kept_as_data(const Source& source, TSNode node) {
  TSNode parent = ts_node_parent(node);
  // `DataParallel(m).state_dict()`: only its state is read.
  if (is(parent, "attribute") && source.text(field(parent, "attribute")) == "state_dict") {
    return true;
  }
  if (is(parent, "pair") && ts_node_eq(field(parent, "value"), node)) return true;
  // An item of a table of module-level data (`TEST_CASES = [DataParallel(
  // PReLU()), ...]`), not of a list a function returns or calls.
  if (is(parent, "list") || is(parent, "tuple")) {
    TSNode up = ts_node_parent(parent);
    while (is(up, "list") || is(up, "tuple") || is(up, "pair") || is(up, "dictionary")) {
      up = ts_node_parent(up);
    }
    return is(up, "assignment") && is(ts_node_parent(ts_node_parent(up)), "module");
  }
  if (is(parent, "keyword_argument")) parent = ts_node_parent(parent);
  if (!is(parent, "argument_list")) return false;
  const TSNode function = field(ts_node_parent(parent), "function");
  const std::string_view name =
      source.text(is(function, "attribute") ? field(function, "attribute") : function);
  return name.find("save") != std::string_view::npos;
}

// `DataParallel(model)` of a model made in this file that nothing moves,
// neither before nor after (the wrapper neither): where a GPU is visible,
// DataParallel's forward requires the module on device_ids[0] and fails.
// Not where the wrap is done only under a test of CUDA.
void data_parallel_on_cpu(const RuleContext& c, const Call& call) {
  if (call.moved || wrapped_under_cuda_test(c.source, call.node) ||
      kept_as_data(c.source, call.node)) {
    return;
  }
  const TSNode parent = ts_node_parent(call.node);
  if (is(parent, "assignment") && c.flow.moved_anywhere(c.source.text(field(parent, "left")))) {
    return;
  }
  for (const Wrap& wrap : c.flow.wraps()) {
    if (!ts_node_eq(wrap.call, call.node) || wrap.value.kind != Kind::kModule ||
        wrap.value.place != Place::kHost || wrap.value.origin != Origin::kUnmovedModule ||
        c.flow.moved_anywhere(c.source.text(wrap.model))) {
      continue;
    }
    const std::string model(c.source.text(wrap.model));
    std::string message = "DataParallel(" + model;
    message += ") of a model made on the CPU (";
    message += line_of(wrap.value.made);
    message +=
        ") and never moved: with a GPU visible, its forward fails (\"module must have its "
        "parameters and buffers on device cuda:0\"); move it first: DataParallel(";
    message += model;
    message += ".to(device)), or leave it unwrapped on the CPU";
    c.sink.report(call.node, "DC104", std::move(message));
  }
}

// Whether `made` builds a module of a class of the file that only holds the
// modules it is given (every `self.x = ...` of its methods is a parameter of
// the method or a literal; nothing registered), from names, one of them with
// no value in the file (`Trainable(student_model, projection)`, the student
// a parameter): the wrapper is where those modules are, which this file does
// not tell (a training script moved the student). Built from layers made in
// the file (`Trainable(nn.Linear(4, 4))`, or a name holding one), or holding
// a layer of its own, it is on the CPU.
bool holds_given_modules(const Source& source, TSNode made) {
  if (!is(made, "call")) return false;
  const TSNode function = field(made, "function");
  if (!is(function, "identifier")) return false;
  const auto cls = source.classes().find(std::string(source.text(function)));
  if (cls == source.classes().end()) return false;
  // Every argument a name (or None), one of them with no value in the file
  // (a parameter: a module handed in).
  const std::vector<TSNode> args = source.positional(made);
  const int scope = source.scope_of(made);
  if (source.has_splat(made) || args.empty() ||
      !std::all_of(
          args.begin(), args.end(),
          [](TSNode a) { return is(a, "identifier") || is(a, "attribute") || is(a, "none"); }) ||
      std::none_of(args.begin(), args.end(), [&](TSNode a) {
        return !is(a, "none") && ts_node_is_null(value_of_object(source, a, scope));
      })) {
    return false;
  }
  bool holds = false;
  for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
    const Scope& scope = source.scopes()[s];
    if (scope.kind != ScopeKind::kFunction || scope.owner_class != cls->second.scope) continue;
    const TSNode parameters = field(scope.node, "parameters");
    for (const auto& [name, values] : scope.assigns) {
      if (name.rfind("self.", 0) != 0) continue;
      for (const TSNode value : values) {
        if (is(value, "none") || is(value, "true") || is(value, "false") || is(value, "integer") ||
            is(value, "float") || is(value, "string")) {
          continue;
        }
        bool given = false;
        for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n && !given; ++i) {
          TSNode p = ts_node_named_child(parameters, i);
          if (!is(p, "identifier")) {
            p = is(field(p, "name"), "identifier") ? field(p, "name") : ts_node_named_child(p, 0);
          }
          given = is(value, "identifier") && !ts_node_is_null(p) &&
                  source.text(p) == source.text(value);
        }
        if (!given) return false;
        holds = true;
      }
    }
  }
  for (const Call& call : source.calls()) {
    const int function_scope = source.function_of(call.scope);
    if (function_scope >= 0 && source.scopes()[function_scope].owner_class == cls->second.scope &&
        (call.method == "register_buffer" || call.method == "register_parameter" ||
         call.method == "add_module" || call.method == "register_module")) {
      return false;
    }
  }
  return holds;
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
    if (is_data_parallel(call.qualified)) {
      data_parallel_then_cuda(c, call);
      data_parallel_on_cpu(c, call);
      continue;
    }
    if (!is_ddp(call) || moved_after(c, call)) continue;
    // device_ids=[...] for a model made in this file and never moved: DDP
    // refuses CPU parameters with device_ids.
    if (ts_node_is_null(c.source.keyword(call.node, "device_ids"))) continue;
    for (const Wrap& wrap : c.flow.wraps()) {
      if (!ts_node_eq(wrap.call, call.node) || wrap.value.kind != Kind::kModule ||
          wrap.value.place != Place::kHost || wrap.value.origin != Origin::kUnmovedModule ||
          holds_given_modules(c.source, wrap.value.made)) {
        continue;
      }
      const std::string model(c.source.text(wrap.model));
      std::string message = "DistributedDataParallel(" + model;
      message += ", device_ids=...) of a model made on the CPU (";
      message += line_of(wrap.value.made);
      message += ") and never moved to its GPU: DDP refuses it; move it first: ";
      message += model;
      message += ".to(device)";
      c.sink.report(call.node, "DC104", std::move(message));
    }
  }
}

}  // namespace

extern const Rule kRuleDC104;
const Rule kRuleDC104 = {
    {"DC104", "wrapped-before-move",
     "DistributedDataParallel(model) built before the model is moved to its device.", false},
    "from torch.nn.parallel import DistributedDataParallel as DDP\n"
    "def main(model, device):\n"
    "    ddp = DDP(model)\n"
    "    ddp.to(device)\n",
    "from torch.nn.parallel import DistributedDataParallel as DDP\n"
    "def main(model, device, rank):\n"
    "    model.to(device)\n"
    "    ddp = DDP(model, device_ids=[rank])\n",
    check};

}  // namespace devcheck::lint::detail
