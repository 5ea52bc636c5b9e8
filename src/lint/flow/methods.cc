// The device flow's methods of values (flow.h): a tensor's, a module's, an
// array's, and moves (`x.to(device)`, `.cuda()`, `.cpu()`).
#include <array>

#include "../common.h"
#include "call_args.h"
#include "run.h"

namespace devcheck::lint::detail {

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
  switch (receiver.kind) {
    case Kind::kTensor:
      if (non_tensor_method(method)) return Value{};
      if (among(method, kBinary) || among(method, kIndexed)) {
        for (const Arg& a : args) meet(call, object, receiver, a.node, effective(a.value), frame);
      }
      v = receiver;
      v.scalar = among(method, kReductions) && args.empty();
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
  if (statement && v.kind != Kind::kTensor &&
      (is(object, "identifier") || !source_.dotted(object).empty())) {
    // Modules (and what is not known to be a tensor) move in place; what is
    // moved so is a module (a tensor's move would be dropped: DC102).
    if (result.kind == Kind::kUnknown) result.kind = Kind::kModule;
    frame.env.set(source_.text(object), result);
  }
  return result;
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

}  // namespace devcheck::lint::detail
