// The device flow's calls (flow.h): factories, modules, torch functions,
// this file's functions and methods (methods of values and moves:
// methods.cc; what torch's modules and functions do with tensors:
// torch_calls.cc).
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "../common.h"
#include "call_args.h"
#include "run.h"

namespace devcheck::lint::detail {

bool is_literal_number(TSNode node) {
  if (is(node, "unary_operator")) node = field(node, fields().argument);
  return is(node, "integer") || is(node, "float") || is(node, "true") || is(node, "false");
}

Value FlowRun::eval_call(TSNode call, Frame& frame) {
  const TSNode function = field(call, fields().function);
  const bool attribute = is(function, "attribute");
  const TSNode object = attribute ? field(function, fields().object) : TSNode{};
  const std::string_view method =
      attribute ? source_.text(field(function, fields().attribute)) : "";
  if (method == "to" || method == "cuda" || method == "cpu") {
    return eval_move(call, object, method, frame, /*statement=*/false);
  }
  const Call* recorded = source_.call_at(call);
  std::string qualified;
  const std::string& q =
      recorded != nullptr ? recorded->qualified : (qualified = source_.qualify(function));
  if (!q.empty() && is_factory(q)) return eval_factory(call, q, frame);
  if (!q.empty()) {
    if (std::optional<Value> moved = container_move(call, q, frame)) return *moved;
  }
  // A method of a value: the object first (once), then the arguments.
  Value receiver;
  const bool self_call = attribute && source_.text(object) == "self";
  if (attribute && q.empty() && !self_call) receiver = eval(object, frame);
  const std::vector<Arg> args = eval_args(call, frame);
  if (const std::optional<Value> sparse = sparse_tensor(call, q, args, frame)) return *sparse;
  if (!framework_calls_.empty()) {
    const uint32_t start = ts_node_start_byte(call);
    const auto f =
        std::lower_bound(framework_calls_.begin(), framework_calls_.end(), start,
                         [](const FrameworkCall& c, uint32_t byte) { return c.start < byte; });
    if (f != framework_calls_.end() && f->start == start) {
      if (auto placed = eval_framework(call, f->framework, args, frame)) return *placed;
    }
  }
  Value v;
  // torchvision.models.__dict__[arch](): a torchvision model by its name.
  if (is(function, "subscript") &&
      source_.qualify(field(function, fields().value)) == "torchvision.models.__dict__") {
    v.kind = Kind::kModule;
    v.place = Place::kHost;
    v.origin = Origin::kUnmovedModule;
    v.made = call;
    return v;
  }
  // torch.load(f, map_location=device): what it loads (a model saved whole,
  // a checkpoint's tensors) is on that device.
  if (q == "torch.load" || q == "torch.jit.load") {
    const Arg* to = keyword_arg(args, "map_location");
    if (to != nullptr && device_of(to->node, frame) == Place::kDevice) v.place = Place::kDevice;
    return v;
  }
  // In a module's method, `self(...)` runs its forward.
  if (is(function, "identifier") && source_.text(function) == "self" && frame.module_method) {
    Value self;
    self.kind = Kind::kModule;
    self.place = Place::kModuleDevice;
    return eval_module_call(call, function, self, args, frame);
  }
  // zip(*rows) regroups what the rows hold; map(np.asarray, xs) gives each
  // of xs to NumPy.
  if (is(function, "identifier") && source_.text(function) == "zip" && args.size() == 1 &&
      is(args[0].node, "list_splat") && args[0].value.kind == Kind::kList) {
    return args[0].value;
  }
  if (is(function, "identifier") && source_.text(function) == "map" && args.size() == 2 &&
      source_.qualify(args[0].node).rfind("numpy.", 0) == 0) {
    const Value e = effective(args[1].value);
    if (args[1].value.kind == Kind::kList && device_value(e) && e.place == Place::kDevice) {
      out_.numpy_reads_.push_back({call, e});
    }
    Value arrays;
    arrays.kind = Kind::kArray;
    arrays.place = Place::kHost;
    return list_of(arrays);
  }
  // tuple(...) and list(...) keep what they are given.
  if (is(function, "identifier") &&
      (source_.text(function) == "tuple" || source_.text(function) == "list") && args.size() == 1 &&
      args[0].value.kind == Kind::kList) {
    return args[0].value;
  }
  if (!q.empty()) {
    if (q == "torch.autograd.Variable" || q == "torch.autograd.variable.Variable") {
      return args.empty() ? Value{} : args[0].value;
    }
    if (q == "torch.Generator" || q == "torch._C.Generator") {
      const Arg* device = keyword_arg(args, "device");
      const std::vector<TSNode> positional = source_.positional(call);
      v.kind = Kind::kGenerator;
      v.place = device != nullptr     ? device_of(device->node, frame)
                : !positional.empty() ? device_of(positional[0], frame)
                                      : Place::kHost;
      v.made = call;
      return v;
    }
    // torchvision's conversions of an image (PIL, NumPy) to a tensor: on
    // the host; a pipeline of them (Compose([..., ToTensor()])) makes one.
    if (const ImageToTensor image = image_to_tensor(source_, call, q);
        image != ImageToTensor::kNo) {
      v.origin = Origin::kImage;
      return image == ImageToTensor::kTransform ? v : image_tensor(call);
    }
    if (q == "torch.from_numpy") {
      v.kind = Kind::kTensor;
      v.place = Place::kHost;
      v.origin = Origin::kNumpy;
      v.made = call;
      return v;
    }
    if (q == "torch.as_tensor" || q == "torch.asarray" || legacy_type_on_cuda(q)) {
      const std::vector<TSNode> positional = source_.positional(call);
      const Arg* device = keyword_arg(args, "device");
      v.kind = Kind::kTensor;
      if (legacy_type_on_cuda(q).value_or(false)) {
        v.place = Place::kDevice;
        return v;
      }
      if (device != nullptr) {
        v.place = device_of(device->node, frame);
        return v;
      }
      if (positional.empty() || has_splat(args)) return v;
      const TSNode data = positional[0];
      const Value of = args.empty() ? Value{} : args[0].value;
      if (is(data, "list") || is(data, "tuple") || is(data, "list_comprehension") ||
          of.kind == Kind::kArray) {
        v.place = Place::kHost;
        v.origin = q == "torch.as_tensor" || q == "torch.asarray" || of.kind == Kind::kArray
                       ? Origin::kNumpy
                       : Origin::kFactory;
        v.made = call;
      } else if (legacy_type_on_cuda(q) &&
                 (is_literal_number(data) ||
                  // A list a helper of the file returns (`torch.Tensor(qs)`).
                  (of.kind == Kind::kList && of.element_place != Place::kDevice &&
                   of.element_place != Place::kModuleDevice) ||
                  (of.kind == Kind::kUnknown && of.place == Place::kUnknown &&
                   q != "torch.as_tensor" && q != "torch.asarray"))) {
        // torch.FloatTensor(2, 3): sizes; torch.FloatTensor(state): the data
        // or the sizes a name holds, on the host either way (never 0-dim).
        v.place = Place::kHost;
        v.origin = Origin::kFactory;
        v.made = call;
      } else if (of.kind == Kind::kTensor) {
        v.place = of.place;
      }
      return v;
    }
    if (reads_as_numpy(q)) {
      for (const Arg& a : args) {
        const Value e = effective(a.value);
        // On the module's device too: DC113 decides whether that is a device.
        if (device_value(e) || device_scalar(e)) {
          out_.numpy_reads_.push_back({call, e});
          break;
        }
      }
      v.kind = Kind::kArray;
      v.place = Place::kHost;
      return v;
    }
    if (q == "torch.nn.Parameter" || q == "torch.nn.parameter.Parameter") {
      v = args.empty() ? Value{} : args[0].value;
      v.kind = Kind::kTensor;
      v.registered = true;
      return v;
    }
    if (q == "torch.utils.data.DataLoader" || q == "torch.utils.data.dataloader.DataLoader") {
      v.kind = Kind::kLoader;
      const Arg* pin = keyword_arg(args, "pin_memory");
      if (pin != nullptr) {
        const std::string_view text = source_.text(pin->node);
        v.pinned = text == "True";
        v.pin_unknown = text != "True" && text != "False";
      }
      v.pin_unknown = v.pin_unknown || has_splat(args);
      if (!args.empty() && args[0].keyword.empty()) {
        out_.loaders_.push_back({call, args[0].value});
      } else if (const Arg* dataset = keyword_arg(args, "dataset")) {
        out_.loaders_.push_back({call, dataset->value});
      }
      return v;
    }
    if (is_wrapper(q)) {
      const std::vector<TSNode> positional = source_.positional(call);
      if (!positional.empty()) {
        out_.wraps_.push_back({call, positional[0], args[0].value});
      }
      v = args.empty() ? Value{} : args[0].value;
      if (v.kind == Kind::kUnknown) v.kind = Kind::kModule;
      // With device_ids it lives there (and scatters its inputs there).
      if (keyword_arg(args, "device_ids") != nullptr) v.place = Place::kDevice;
      v.scatters = true;
      v.origin = Origin::kNone;
      return v;
    }
    if (is_pretrained_model(q) && !has_splat(args)) {
      if (auto loaded = pretrained_model(call, args, frame)) return *loaded;
    }
    if (is_torchvision_model(q) || is_metric_class(q)) {
      v.kind = Kind::kModule;
      v.place = Place::kHost;
      v.origin = Origin::kUnmovedModule;
      v.made = call;
      return v;
    }
    if (is_module_class(q)) {
      v.kind = Kind::kModule;
      v.place = Place::kHost;
      // Only a layer with parameters or buffers minds where it is called; a
      // container is where the modules given to it are.
      const std::string_view layer = std::string_view(q).substr(q.rfind('.') + 1);
      const bool container =
          layer == "Sequential" || layer == "ModuleList" || layer == "ModuleDict";
      bool given_host = true;
      for (const Arg& a : args) {
        const Value e = effective(a.value);
        given_host = given_host && e.kind == Kind::kModule && e.place == Place::kHost;
      }
      if (container && !args.empty() && !given_host) v.place = Place::kUnknown;
      if (container && !args.empty()) {
        const Value e = effective(args[0].value);
        if (e.kind == Kind::kModule) {
          v.element = Kind::kModule;
          v.element_cls = e.cls;
        }
      }
      // Made where device= says (`nn.Linear(4, 4, device="cuda")`).
      if (const Arg* d = keyword_arg(args, "device")) v.place = device_of(d->node, frame);
      if (layer_has_parameters(layer) && v.place == Place::kHost) v.origin = Origin::kUnmovedModule;
      v.made = call;
      // A loss given a class weight keeps it as a buffer: on the host until
      // the loss is moved.
      for (const char* name : {"weight", "pos_weight"}) {
        const Arg* w = keyword_arg(args, name);
        // A class weight is never 0-dim: torch.tensor(weights) is one.
        const bool weights = w != nullptr && w->value.kind == Kind::kTensor &&
                             w->value.place == Place::kHost && !ts_node_is_null(w->value.made);
        if (w != nullptr && (host_tensor(w->value) || weights)) {
          v.held_place = Place::kHost;
          v.held_origin = w->value.origin;
          v.held_made = w->value.made;
          v.held_argument = w->node;
        }
      }
      return v;
    }
    if (q.rfind("torchvision.datasets.", 0) == 0 || q == "torch.utils.data.TensorDataset" ||
        q == "torch.utils.data.dataset.TensorDataset") {
      v.kind = Kind::kDataset;
      v.place = Place::kHost;
      // A TensorDataset holds the tensors it is given, where they are: its
      // items and a loader's batches over it are there too, on the host only
      // where the flow knows every one is (not a caller's `x` it is given).
      bool unknown = false;
      for (const Arg& a : args) {
        const Place place = effective(a.value).place;
        if (place == Place::kDevice) v.place = Place::kDevice;
        unknown = unknown || (place != Place::kHost && place != Place::kDevice);
      }
      if (unknown && v.place == Place::kHost && q.rfind("torchvision.", 0) != 0) {
        v.place = Place::kUnknown;
      }
      v.made = call;
      return v;
    }
    if (computes_on_arguments(q)) return eval_torch_function(call, q, args, frame);
    if (gives_no_tensor(q)) return Value{};
  }
  // A tokenizer's tensors (return_tensors="pt").
  if (const Arg* r = keyword_arg(args, "return_tensors")) {
    if (string_value(source_, r->node) == std::optional<std::string>("pt")) {
      v.kind = method == "encode" ? Kind::kTensor : Kind::kEncoding;
      v.place = Place::kHost;
      v.origin = Origin::kBatch;
      v.made = call;
      return v;
    }
  }
  if (is(function, "identifier")) {
    // `cls(...)` in a method of a class (a classmethod) makes one of its class.
    const std::string_view called = source_.text(function);
    const bool own = called == "cls" && frame.owner_class >= 0;
    const auto c = source_.classes().find(
        std::string(own ? std::string_view(source_.scopes()[frame.owner_class].name) : called));
    if (c != source_.classes().end()) {
      const int init = method_of(c->second.scope, "__init__");
      if (init >= 0) record_call(init, call, args, frame);
    }
    if (c != source_.classes().end() && (c->second.is_module || c->second.is_dataset)) {
      v.kind = c->second.is_module ? Kind::kModule : Kind::kDataset;
      v.place = Place::kHost;
      if (c->second.is_module) place_new_module(source_, c->second.scope, v);
      v.made = call;
      v.cls = c->second.scope;
      return v;
    }
    // An instance of a plain class of the file: what it keeps is what its
    // methods leave in `self.x` (`sched.alphas[t]`).
    if (c != source_.classes().end() && !own) {
      v.cls = c->second.scope;
      return v;
    }
  }
  if (const std::optional<Value> first = first_parameter(function, args, frame)) return *first;
  // iter(loader) is the loader; next(...) of it one of its batches.
  if (is(function, "identifier") && !args.empty() && args[0].value.kind == Kind::kLoader) {
    if (source_.text(function) == "iter") return args[0].value;
    if (source_.text(function) == "next") return element_of(args[0].value, args[0].node, frame);
  }
  const int f = file_function(function, frame);
  // In a module's method, `self.forward(...)` is a call of the module itself.
  if (self_call && method == "forward" && frame.module_method) {
    Value self;
    self.kind = Kind::kModule;
    self.place = Place::kModuleDevice;
    return eval_module_call(call, function, self, args, frame);
  }
  if (self_call) {
    Value callee = lookup(source_.text(function), frame);
    if (callee.origin == Origin::kImage && callee.kind == Kind::kUnknown) return image_tensor(call);
    if (const std::optional<Value> out = call_instance(call, callee, args, frame)) return *out;
    // A function of the file the class keeps (`self.loss_fn(out)`): a call
    // of it.
    if (callee.kind == Kind::kUnknown && callee.place == Place::kUnknown && f < 0) {
      // A torch factory kept so (`self.win = torch.hann_window`) makes
      // what it makes called by its own name.
      if (const std::string factory = kept_factory(function, frame); !factory.empty()) {
        return eval_factory(call, factory, frame);
      }
      if (const int kept = kept_function(function, frame); kept >= 0) {
        record_call(kept, call, args, frame);
        const Summary& summary = analyze(kept);
        last_tuple_ = summary.tuple;
        return summary.value;
      }
    }
    // In a module's method, `self.x(...)` of no method of its class calls a
    // submodule (assigned in a base class, or by setattr).
    if (callee.kind == Kind::kUnknown && callee.place == Place::kUnknown && f < 0 &&
        frame.module_method && !frame.init && !is_module_own_method(method)) {
      callee.kind = Kind::kModule;
      callee.place = Place::kModuleDevice;
      // What it returns is not known to be a tensor (it may be a class).
      Value out = eval_module_call(call, function, callee, args, frame);
      out.kind = Kind::kUnknown;
      return out;
    }
    // Anything on a device that is called is a module (`self.model =
    // model.to(device)`, then `self.model(x)`).
    if (callee.kind == Kind::kModule ||
        (callee.kind == Kind::kUnknown && callee.place == Place::kDevice)) {
      return eval_module_call(call, function, callee, args, frame);
    }
  }
  if (f >= 0) {
    record_call(f, call, args, frame);
    enter_closure(f, frame);
    const Summary& summary = analyze(f);
    moved_by_callee(f, call, frame);
    last_tuple_ = summary.tuple;
    return summary.value;
  }
  if (attribute && !self_call && receiver.kind == Kind::kModule && receiver.cls >= 0) {
    Value found;
    int method_scope = -1;
    if (member(receiver, method, found, method_scope)) {
      if (method_scope >= 0) {
        record_call(method_scope, call, args, frame, receiver.place == Place::kDevice);
        last_tuple_ = summaries_[method_scope].tuple;
        for (Value& part : last_tuple_) {
          if (part.place == Place::kModuleDevice) part.place = receiver.place;
        }
        return found;
      }
      if (found.kind == Kind::kModule) return eval_module_call(call, function, found, args, frame);
    }
  }
  // `buffer.update_priorities(idxes, ...)` on an object the flow knows
  // nothing of, where one class of the file alone has a method of that
  // name (or on an instance of a plain class of the file, that class's):
  // what the call passes reaches that method's parameters.
  if (attribute && !self_call && receiver.kind == Kind::kUnknown &&
      receiver.place == Place::kUnknown) {
    const int only = receiver.cls >= 0 ? method_of(receiver.cls, method) : only_method(method);
    if (only >= 0) {
      record_call(only, call, args, frame);
      // Its class's __init__ first: the method reads what it sets.
      analyze_class(source_.scopes()[only].owner_class);
      // A factory's method (`encoder_factory.create(shape)`) that returns a
      // model it makes gives that model, unmoved as it is made; one that
      // returns a function it defines, that function.
      const Summary& summary = analyze(only);
      if (summary.value.kind == Kind::kModule || summary.value.function >= 0) return summary.value;
    }
  }
  if (attribute && !self_call) return eval_method(call, object, method, receiver, args, frame);
  Value callee;
  if (!attribute) {
    callee = eval(function, frame);
    // A function of the file a call returned: a call of it.
    if (callee.function >= 0) {
      record_call(callee.function, call, args, frame);
      const Summary& summary = analyze(callee.function);
      last_tuple_ = summary.tuple;
      return summary.value;
    }
    if (callee.origin == Origin::kImage && callee.kind == Kind::kUnknown) return image_tensor(call);
    if (const std::optional<Value> out = call_instance(call, callee, args, frame)) return *out;
    if (callee.kind == Kind::kModule ||
        (callee.kind == Kind::kUnknown && callee.place == Place::kDevice)) {
      return eval_module_call(call, function, callee, args, frame);
    }
  }
  return computed_from(function, callee, args);
}

Value FlowRun::eval_factory(TSNode call, std::string_view qualified, Frame& frame) {
  const std::vector<Arg> args = eval_args(call, frame);
  const std::vector<TSNode> positional = source_.positional(call);
  Value v;
  v.kind = Kind::kTensor;
  const Arg* pin = keyword_arg(args, "pin_memory");
  v.pinned = pin != nullptr && source_.text(pin->node) == "True";
  const TSNode first = positional.empty() ? TSNode{} : positional[0];
  // `torch.normal(mean, std)` without a size draws where its tensors are
  // (`torch.normal(torch.zeros_like(x), torch.ones_like(x))` is on x's
  // device): a torch function of them, not a factory.
  if (qualified == "torch.normal" && positional.size() < 3 &&
      keyword_arg(args, "size") == nullptr) {
    return eval_torch_function(call, qualified, args, frame);
  }
  if (qualified == "torch.tensor") {
    // A number (or what may be one) makes a 0-dim tensor, which mixes with
    // any device; data makes a tensor of its size.
    const Value data = args.empty() ? Value{} : args[0].value;
    // A tensor's copy is made on its device (without device=).
    if (data.kind == Kind::kTensor &&
        (data.place == Place::kDevice || data.place == Place::kModuleDevice) &&
        keyword_arg(args, "device") == nullptr) {
      v.place = data.place;
      v.scalar = data.scalar;
      return v;
    }
    // A host tensor (a batch's labels) is copied whole, on the host.
    const bool sized = is(first, "list") || is(first, "tuple") || is(first, "list_comprehension") ||
                       data.kind == Kind::kArray || data.kind == Kind::kList || host_tensor(data);
    v.scalar = !sized;
    if (data.kind == Kind::kArray) v.origin = Origin::kNumpy;
  } else if (is(first, "tuple") && ts_node_named_child_count(first) == 0) {
    v.scalar = true;
  } else if (const Arg* size = qualified == "torch.randint" || positional.empty()
                                   ? keyword_arg(args, "size")
                                   : nullptr) {
    // `torch.randint(0, 5, size=(1,))`: the size, as if given last.
    std::vector<TSNode> sized = positional;
    sized.push_back(size->node);
    factory_shape(source_, qualified, sized, v);
  } else {
    factory_shape(source_, qualified, positional, v);
  }
  // `torch.randn(n, *shape)`: sizes splatted in, still no device.
  if (has_keyword_splat(args) || keyword_arg(args, "out") != nullptr || frame.default_device > 0 ||
      default_device_set_) {
    return v;
  }
  if (const Arg* device = keyword_arg(args, "device")) {
    v.place = device_of(device->node, frame);
    v.origin = Origin::kNone;
    return v;
  }
  v.place = Place::kHost;
  if (v.origin == Origin::kNone) v.origin = Origin::kFactory;
  v.made = call;
  // A generator on a device draws only where it is: a factory that makes
  // its tensor on the CPU with it fails ("Expected a 'cpu' device type for
  // generator but found 'cuda'").
  if (const Arg* generator = keyword_arg(args, "generator")) {
    if (generator->value.kind == Kind::kGenerator && generator->value.place == Place::kDevice &&
        !v.scalar) {
      out_.meetings_.push_back({call, call, v, generator->value, frame.scope});
    }
  }
  return v;
}

}  // namespace devcheck::lint::detail
