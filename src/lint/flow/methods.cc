// The device flow's methods of values (flow.h): a tensor's, a module's, an
// array's, a plain object's __call__, and moves (`x.to(device)`, `.cuda()`,
// `.cpu()`); what a call nothing is known of gives.
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "../common.h"
#include "call_args.h"
#include "run.h"

namespace devcheck::lint::detail {
namespace {

// Whether `x.<method>(args)` takes another tensor's type: `x.type_as(y)`,
// `x.type(y.type())`.
bool typed_as_other(const Source& source, std::string_view method,
                    const std::vector<FlowRun::Arg>& args) {
  if (method == "type_as") return true;
  if (method != "type" || args.size() != 1 || !is(args[0].node, "call")) return false;
  const TSNode inner = field(args[0].node, fields().function);
  return is(inner, "attribute") && source.text(field(inner, fields().attribute)) == "type";
}

// `x.type(torch.LongTensor)` (or its string, `x.type("torch.cuda.FloatTensor")`):
// whether that type is a CUDA one; nullopt for any other call (`x.type()`,
// `x.type(torch.int64)`, `x.type(torch.Tensor)`, which follows the default
// type).
std::optional<bool> legacy_type(const Source& source, std::string_view method,
                                const std::vector<FlowRun::Arg>& args) {
  if (method != "type" || args.size() != 1 || !args[0].keyword.empty()) return std::nullopt;
  const TSNode node = args[0].node;
  std::string name;
  if (is(node, "attribute")) {
    name = source.qualify(node);
  } else if (const std::optional<std::string> text = string_value(source, node)) {
    name = *text;
  }
  if (name == "torch.Tensor" || name == "torch.cuda.Tensor") return std::nullopt;
  return legacy_type_on_cuda(name);
}

// Where `x.type_as(y)` is: where y is (its device and its dtype; a CUDA
// type string `x.type(y.type())` takes to a CUDA device too), unknown when
// y is not one tensor.
Place type_as_place(const std::vector<FlowRun::Arg>& args) {
  if (args.size() != 1 || !args[0].keyword.empty()) return Place::kUnknown;
  const Value other = effective(args[0].value);
  return other.kind == Kind::kTensor || other.kind == Kind::kUnknown ? other.place
                                                                     : Place::kUnknown;
}

}  // namespace

Value FlowRun::eval_method(TSNode call, TSNode object, std::string_view method,
                           const Value& receiver, const std::vector<Arg>& args, Frame& frame) {
  static constexpr std::array<std::string_view, 30> kBinary = {"add",          "add_",
                                                               "sub",          "sub_",
                                                               "mul",          "mul_",
                                                               "div",          "div_",
                                                               "matmul",       "mm",
                                                               "bmm",          "masked_fill",
                                                               "masked_fill_", "masked_select",
                                                               "gather",       "scatter",
                                                               "scatter_",     "scatter_add",
                                                               "scatter_add_", "where",
                                                               "dot",          "maximum",
                                                               "minimum",      "eq",
                                                               "ne",           "lt",
                                                               "gt",           "le",
                                                               "ge",           "lerp"};
  // Methods given an index or a mask, which must be where the tensor is
  // (index_select of a CUDA tensor with a host index fails; `x[index]`
  // does not, and is not here). Only tensors have these, so a receiver the
  // flow knows only the place of is taken for one.
  static constexpr std::array<std::string_view, 13> kIndexed = {
      "index_select", "index_add",   "index_add_",   "index_copy", "index_copy_",
      "take",         "gather",      "scatter",      "scatter_",   "scatter_add",
      "scatter_add_", "masked_fill", "masked_select"};
  static constexpr std::array<std::string_view, 9> kReductions = {
      "sum", "mean", "max", "min", "norm", "prod", "all", "any", "std"};
  Value v;
  if (method == "numpy") {
    out_.numpy_reads_.push_back({call, receiver});
    v.kind = Kind::kArray;
    v.place = Place::kHost;
    return v;
  }
  if (method == "pin_memory") {
    v = receiver;
    v.pinned = true;
    return v;
  }
  // `x.type(torch.LongTensor)`: a legacy type names its device too; a CPU
  // one copies a tensor on a device to the host (`torch.cuda.LongTensor`
  // to the current GPU).
  if (const std::optional<bool> cuda = legacy_type(source_, method, args);
      cuda.has_value() && receiver.kind != Kind::kModule) {
    v = receiver;
    v.kind = Kind::kTensor;
    v.registered = false;
    if (*cuda) {
      v.place = Place::kDevice;
      v.origin = Origin::kNone;
    } else if (receiver.place != Place::kHost) {
      v.place = Place::kHost;
      v.origin = Origin::kHostCopy;
      v.made = call;
    }
    return v;
  }
  switch (receiver.kind) {
    case Kind::kTensor:
      if (non_tensor_method(method)) return Value{};
      if (among(method, kBinary) || among(method, kIndexed)) {
        for (const Arg& a : args) meet(call, object, receiver, a.node, effective(a.value), frame);
      }
      v = receiver;
      v.scalar = among(method, kReductions) && args.empty();
      method_shape(method, args.empty(), v);
      if (typed_as_other(source_, method, args)) v.place = type_as_place(args);
      return v;
    case Kind::kModule:
      // A Hugging Face model's generate() runs its forward on the tensors
      // it is given.
      if (method == "forward" || method == "generate") {
        return eval_module_call(call, object, receiver, args, frame);
      }
      // Its state_dict() holds its parameters and buffers, where it is.
      if (method == "state_dict" && args.empty() &&
          (receiver.place == Place::kDevice || receiver.place == Place::kHost)) {
        Value tensor;
        tensor.kind = Kind::kTensor;
        tensor.place = receiver.place;
        return list_of(tensor);
      }
      if (method == "train" || method == "eval" || method == "float" || method == "half" ||
          method == "double" || method == "bfloat16" || method == "requires_grad_") {
        return receiver;
      }
      return Value{};
    case Kind::kArray:
      return receiver;
    case Kind::kUnknown:
      // What is on a device and has a module's methods is a module
      // (`model.cuda().eval()`, `net.state_dict()` of a model moved).
      if ((receiver.place == Place::kDevice || receiver.place == Place::kHost) &&
          (method == "train" || method == "eval" || method == "state_dict" ||
           method == "generate")) {
        Value module = receiver;
        module.kind = Kind::kModule;
        return eval_method(call, object, method, module, args, frame);
      }
      if (receiver.place != Place::kUnknown && tensor_method(method)) {
        if (among(method, kIndexed)) {
          for (const Arg& a : args) {
            meet(call, object, receiver, a.node, effective(a.value), frame, true);
          }
        }
        v = receiver;
        v.kind = Kind::kTensor;
        v.scalar = among(method, kReductions) && args.empty();
        method_shape(method, args.empty(), v);
        if (typed_as_other(source_, method, args)) v.place = type_as_place(args);
        return v;
      }
      return receiver.place == Place::kUnknown ? computed_from(object, receiver, args) : Value{};
    default:
      return Value{};
  }
}

Value FlowRun::eval_move(TSNode call, TSNode object, std::string_view method, Frame& frame,
                         bool statement) {
  // The object as the flow has it here: `x.to(device)` elsewhere in the file
  // says nothing of what x is.
  const bool named =
      is(object, "identifier") ||
      (is(object, "attribute") && source_.text(field(object, fields().object)) == "self");
  const Value v =
      named ? lookup(source_.text(object), frame, /*moved=*/false) : eval(object, frame);
  const std::vector<Arg> args = eval_args(call, frame);
  Place target = v.place;
  if (method == "cuda") {
    target = Place::kDevice;
  } else if (method == "cpu") {
    target = Place::kHost;
  } else {
    const Arg* device = keyword_arg(args, "device");
    TSNode to = device != nullptr ? device->node : TSNode{};
    if (ts_node_is_null(to)) {
      for (const Arg& a : args) {
        if (a.keyword.empty()) {
          to = a.node;
          break;
        }
      }
    }
    if (!ts_node_is_null(to) && !is_dtype(source_, to)) target = device_of(to, frame);
  }
  const Arg* nb = keyword_arg(args, "non_blocking");
  Move move;
  move.call = call;
  move.object = object;
  move.value = v;
  move.target = target;
  move.statement = statement;
  move.non_blocking = nb != nullptr && source_.text(nb->node) == "True";
  move.scope = frame.scope;
  // One sample of a batch: a loop's variable over the batch, or the batch
  // indexed by a loop's variable.
  for (const auto& [target, element] : frame.loops) {
    move.per_sample = move.per_sample ||
                      (is(target, "identifier") && source_.text(target) == source_.text(object) &&
                       element.sample && element.origin == Origin::kBatch);
  }
  if (is(object, "subscript")) {
    const Value batch = eval(field(object, fields().value), frame);
    const bool indexed_by_loop =
        std::any_of(frame.loops.begin(), frame.loops.end(), [&](const auto& loop) {
          const std::string_view variable = source_.text(loop.first);
          return is(loop.first, "identifier") &&
                 source_.text(field(object, fields().subscript)) == variable;
        });
    move.per_sample =
        move.per_sample || (indexed_by_loop && batch.kind == Kind::kTensor &&
                            batch.origin == Origin::kBatch && batch.place == Place::kHost);
  }
  out_.moves_.push_back(move);
  Value result = v;
  result.place = target;
  // A parameter moved elsewhere is a plain tensor (a copy).
  if (target != v.place) result.registered = false;
  if (target == Place::kHost && v.place != Place::kHost) {
    result.origin = Origin::kHostCopy;
    result.made = call;
    // An input of a module's method copied to the host (`idx.cpu()`): a
    // tensor (what a module is given is, and its own submodules the flow
    // knows as modules).
    if (v.kind == Kind::kUnknown && v.place == Place::kModuleDevice && is(object, "identifier")) {
      result.kind = Kind::kTensor;
    }
  } else if (target != Place::kHost) {
    result.origin = Origin::kNone;
    result.pinned = false;
    result.held_place = Place::kUnknown;
  }
  // `net.eval().cuda()`: the module those methods return is `net` itself.
  const TSNode root = statement ? module_chain_root(source_, object) : object;
  if (!ts_node_eq(root, object) && (is(root, "identifier") || !source_.dotted(root).empty())) {
    Value moved = lookup(source_.text(root), frame, /*moved=*/false);
    if (moved.kind == Kind::kModule || moved.kind == Kind::kUnknown) {
      moved.kind = Kind::kModule;
      moved.place = target;
      moved.origin = Origin::kNone;
      frame.env.set(source_.text(root), moved);
    }
    return result;
  }
  // `nets[k].to(device)`, `for m in models: m.to(device)`: the container's
  // modules move in place.
  if (statement && v.kind != Kind::kTensor) {
    TSNode container = is(object, "subscript") ? field(object, fields().value) : TSNode{};
    for (const auto& loop : frame.loops) {
      if (is(loop.first, "identifier") && source_.text(loop.first) == source_.text(object)) {
        container = field(ts_node_parent(loop.first), fields().right);
      }
    }
    const Value* held =
        is(container, "identifier") ? frame.env.find(source_.text(container)) : nullptr;
    if (held != nullptr && held->kind == Kind::kList && held->element == Kind::kModule) {
      Value moved = *held;
      moved.element_place = target;
      moved.keys = -1;  // (each entry moved, under whichever key)
      frame.env.set(source_.text(container), moved);
    }
  }
  if (statement && v.kind != Kind::kTensor &&
      (is(object, "identifier") || !source_.dotted(object).empty())) {
    // Modules (and what is not known to be a tensor) move in place; what is
    // moved so is a module (a tensor's move would be dropped: DC102).
    if (result.kind == Kind::kUnknown) result.kind = Kind::kModule;
    frame.env.set(source_.text(object), result);
    // `model = net`, then `model.to(device)`: `net` is the same module.
    for (const auto& [alias, of] : frame.aliases) {
      const std::string_view name = source_.text(object);
      const std::string_view other = alias == name ? of : of == name ? alias : std::string_view();
      const Value* held = other.empty() ? nullptr : frame.env.find(other);
      if (held != nullptr && held->kind == Kind::kModule) frame.env.set(other, result);
    }
  }
  return result;
}

// What a call nothing is known of gives: computation follows its inputs, so
// one given a tensor on the device (a model passed in, a helper of another
// file) gives something on the device. Not the builtins that give numbers,
// strings or nothing.
Value FlowRun::computed_from(TSNode function, const Value& callee,
                             const std::vector<Arg>& args) const {
  static constexpr std::array<std::string_view, 22> kBuiltins = {
      "len",     "print",   "int",     "float",    "str",       "bool", "isinstance", "type",
      "id",      "repr",    "hash",    "range",    "enumerate", "zip",  "open",       "format",
      "getattr", "setattr", "hasattr", "callable", "iter",      "round"};
  if (callee.kind != Kind::kUnknown || callee.place != Place::kUnknown) return Value{};
  if (host_output(callee, args)) return Value{};  // `output_type="pil"`
  if (is(function, "identifier") && among(source_.text(function), kBuiltins)) return Value{};
  Value out;
  for (const Arg& a : args) {
    const Value e = effective(a.value);
    if (device_value(e) && e.place == Place::kDevice) {
      out.place = Place::kDevice;
      return out;
    }
    // A tensor known on the module's device (not a value of unknown kind, a
    // forward's input that may be an image or a size) gives what it computes
    // there (`box_iou(boxes, anchors)`).
    if (device_value(e) && e.kind == Kind::kTensor) out.place = Place::kModuleDevice;
  }
  return out;
}

// An instance of a plain class of the file called (`self.pre_processor(
// crops)`) runs its __call__.
std::optional<Value> FlowRun::call_instance(TSNode call, const Value& callee,
                                            const std::vector<Arg>& args, Frame& frame) {
  if (callee.cls < 0 || callee.kind != Kind::kUnknown || callee.place != Place::kUnknown) {
    return std::nullopt;
  }
  const int method = method_of(callee.cls, "__call__");
  if (method < 0) return std::nullopt;
  record_call(method, call, args, frame);
  // Its class's __init__ first: __call__ reads what it sets.
  analyze_class(callee.cls);
  last_tuple_ = analyze(method).tuple;
  return summaries_[method].value;
}

Value FlowRun::image_tensor(TSNode call) {
  Value v;
  v.kind = Kind::kTensor;
  v.place = Place::kHost;
  v.origin = Origin::kImage;
  v.made = call;
  return v;
}

// A model of this file whose forward returns a tuple (`loss, kl, acc =
// model(x)`): each part is where the model's output is (`out`), but a part
// forward makes no tensor of (`kl.item()`, a count) is not a tensor, and a
// 0-dim one (`loss.mean()`) stays 0-dim.
void FlowRun::forward_tuple(const Value& module, const Value& out) {
  last_tuple_.clear();
  if (module.cls < 0) return;
  const int forward = method_of(module.cls, "forward");
  if (forward < 0) return;
  analyze_class(module.cls);
  const std::vector<Value> parts = analyze(forward).tuple;
  for (const Value& part : parts) {
    Value mapped = out;
    if (part.kind != Kind::kTensor && part.place == Place::kUnknown) mapped = Value{};
    mapped.scalar = part.kind == Kind::kTensor && part.scalar;
    last_tuple_.push_back(mapped);
  }
}

// A model of this file on a device given a whole batch of a DataLoader
// (`model(batch)`, a dict or tuple of host tensors): its forward reads the
// batch's parts where they are, on the host, not on the module's device.
// Only that goes in (every call of the forward must pass it, else its
// inputs stay on the module's device).
void FlowRun::pass_batch_to_forward(TSNode call, const Value& module, const std::vector<Arg>& args,
                                    const Frame& frame) {
  if (module.cls < 0) return;
  const int forward = method_of(module.cls, "forward");
  if (forward < 0) return;
  std::vector<Arg> batches = args;
  for (Arg& a : batches) {
    const Value& v = a.value;
    const bool whole_batch = module.place == Place::kDevice && v.kind == Kind::kUnknown &&
                             v.place == Place::kHost && v.origin == Origin::kBatch &&
                             !ts_node_is_null(v.made) && !module.scatters;
    if (!whole_batch) a.value = Value{};
  }
  record_call(forward, call, batches, frame);
}

// Whether a host copy (`x.cpu()`, `x.cpu().contiguous()`) was made as an
// argument of another call than `call` (`knn(x.cpu(), k)`): what comes back
// of it is that function's result.
bool copied_for_a_call(TSNode copy, TSNode call) {
  TSNode node = copy;
  TSNode parent = ts_node_parent(node);
  while (!ts_node_is_null(parent) && (is(parent, "attribute") || is(parent, "call"))) {
    node = parent;
    parent = ts_node_parent(node);
  }
  return is(parent, "argument_list") && !ts_node_eq(ts_node_parent(parent), call);
}

bool FlowRun::member(const Value& instance, std::string_view name, Value& value, int& method) {
  analyze_class(instance.cls);
  method = method_of(instance.cls, name);
  if (method >= 0) value = analyze(method).value;
  if (method < 0) {
    const auto attributes = class_attributes_.find(instance.cls);
    if (attributes == class_attributes_.end()) return false;
    const Value* found = attributes->second.find("self." + std::string(name));
    if (found == nullptr) return false;
    value = *found;
  }
  if (value.place == Place::kModuleDevice) value.place = instance.place;
  return true;
}

int FlowRun::file_function(TSNode function, const Frame& frame) const {
  if (is(function, "identifier")) {
    const int nested = nested_function(frame.scope, source_.text(function));
    if (nested >= 0) return nested;
    const auto found = functions_.find(source_.text(function));
    return found == functions_.end() ? -1 : found->second;
  }
  if (is(function, "attribute") && frame.owner_class >= 0 &&
      source_.text(field(function, fields().object)) == "self") {
    return method_of(frame.owner_class, source_.text(field(function, fields().attribute)));
  }
  return -1;
}

TSNode FlowRun::kept_in_init(TSNode function, const Frame& frame) const {
  // `self.x = name` among the statements of the class's __init__.
  const int init = method_of(frame.owner_class, "__init__");
  if (init < 0) return TSNode{};
  const std::string_view name = source_.text(function);
  TSNode found{};
  for_each_named_child(field(source_.scopes()[init].node, fields().body), [&](TSNode statement) {
    const TSNode assignment =
        is(statement, "expression_statement") ? ts_node_named_child(statement, 0) : TSNode{};
    if (ts_node_is_null(found) && is(assignment, "assignment") &&
        source_.text(field(assignment, fields().left)) == name) {
      found = field(assignment, fields().right);
    }
  });
  return found;
}

int FlowRun::kept_function(TSNode function, const Frame& frame) const {
  const TSNode right = kept_in_init(function, frame);
  if (!is(right, "identifier")) return -1;
  const std::string_view held = source_.text(right);
  if (const auto direct = functions_.find(held); direct != functions_.end()) return direct->second;
  // A parameter of __init__ whose default names one.
  int found = -1;
  const TSNode init = source_.scopes()[method_of(frame.owner_class, "__init__")].node;
  for_each_named_child(field(init, fields().parameters), [&](TSNode p) {
    if (!is(p, "default_parameter") && !is(p, "typed_default_parameter")) return;
    const TSNode value = field(p, fields().value);
    if (source_.text(field(p, fields().name)) != held || !is(value, "identifier")) return;
    if (const auto by_default = functions_.find(source_.text(value));
        by_default != functions_.end()) {
      found = by_default->second;
    }
  });
  return found;
}

std::string FlowRun::kept_factory(TSNode function, const Frame& frame) const {
  const TSNode right = kept_in_init(function, frame);
  if (!is(right, "identifier") && !is(right, "attribute")) return "";
  std::string q = source_.qualify(right);
  return is_factory(q) ? q : "";
}

}  // namespace devcheck::lint::detail
