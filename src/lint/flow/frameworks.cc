// What frameworks place (flow.h, docs/lint.md "The device flow"): calls of
// a training framework that move a model or its batches where the file's
// own code never says so. Declared once here, by the framework's contract,
// not by any one program:
// - a launcher (Accelerate's `accelerator.prepare(...)`, Lightning Fabric's
//   `fabric.setup(...)`/`setup_module(...)`, ignite's `idist.auto_model(...)`)
//   moves the modules it is given to its device, in place, and returns them
//   there (with the loaders, optimizers and schedulers it was given);
// - ignite's `create_supervised_trainer(model, ..., device=d)` and
//   `create_supervised_evaluator(model, ..., device=d)` move each batch to d
//   and never the model (their documentation says so);
// - a Hugging Face `Trainer(model=...)` (and its subclasses, trl's) moves
//   the model to the Trainer's device, in place, when it is made;
// - `torch.compile(m)`, `torch.jit.script(m)`, `torch.jit.trace(m, ...)`
//   and `accelerator.unwrap_model(m)` give m back where it is (wrapped or
//   unwrapped);
// - Lightning's `trainer.fit(model)` (and `validate`, `test`, `predict`)
//   moves the model back to the CPU when it ends;
// - a Hugging Face diffusers pipeline gives what its `output_type=` asks
//   for: NumPy arrays ("np") or PIL images ("pil", its default, read as
//   `.images`), tensors only for "pt" (and "latent");
// and a LightningModule is moved by Lightning's Trainer (framework_handed
// and lightning_module, below, for what its methods are handed).
#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "../common.h"
#include "call_args.h"
#include "run.h"

namespace devcheck::lint::detail {
namespace {

bool imports_any(const Source& source, std::initializer_list<std::string_view> roots) {
  return std::any_of(source.imports().begin(), source.imports().end(), [&](const auto& i) {
    return std::any_of(roots.begin(), roots.end(), [&](std::string_view root) {
      return i.second.rfind(root, 0) == 0 &&
             (i.second.size() == root.size() || i.second[root.size()] == '.');
    });
  });
}

// Whether the last part of a dotted name says `word` (`self.accelerator`,
// `fabric`), in any case.
bool last_name_says(std::string_view name, std::string_view word) {
  const std::size_t dot = name.rfind('.');
  if (dot != std::string_view::npos) name.remove_prefix(dot + 1);
  return names_any(name, {word});
}

// Whether a pipeline's `output_type=` asks for what is no tensor: anything
// but "pt" or "latent" (NumPy arrays, PIL images).
bool asks_no_tensor(const std::optional<std::string>& asked) {
  return asked && *asked != "pt" && *asked != "latent";
}

bool is_lightning_trainer(std::string_view q) {
  return q == "pytorch_lightning.Trainer" || q == "lightning.Trainer" ||
         q == "lightning.pytorch.Trainer" || q == "pytorch_lightning.trainer.Trainer" ||
         q == "lightning.pytorch.trainer.Trainer";
}

bool is_launcher_class(std::string_view q) {
  return q == "accelerate.Accelerator" || q == "lightning.Fabric" ||
         q == "lightning.fabric.Fabric" || q == "lightning_fabric.Fabric";
}

// Whether a launcher is made to leave things where they are: on the CPU
// (`Fabric(accelerator="cpu")`, `Accelerator(cpu=True)`) or unplaced
// (`Accelerator(device_placement=False)`).
bool keeps_on_host(const Source& source, TSNode made) {
  const TSNode accelerator = source.keyword(made, "accelerator");
  const TSNode cpu = source.keyword(made, "cpu");
  const TSNode placement = source.keyword(made, "device_placement");
  return (!ts_node_is_null(accelerator) && string_value(source, accelerator) == "cpu") ||
         (!ts_node_is_null(cpu) && !is(cpu, "false")) ||
         (!ts_node_is_null(placement) && !is(placement, "true"));
}

// A Hugging Face (or trl) trainer class: `transformers.Trainer`,
// `transformers.Seq2SeqTrainer`, `trl.SFTTrainer`, ...
bool is_hf_trainer(std::string_view q) {
  const std::string_view suffix = "Trainer";
  return (q.rfind("transformers.", 0) == 0 || q.rfind("trl.", 0) == 0) &&
         q.size() >= suffix.size() && q.substr(q.size() - suffix.size()) == suffix;
}

// Whether a class of the file derives (directly) from a Hugging Face trainer.
bool derives_hf_trainer(const Source& source, std::string_view name) {
  const auto found = source.classes().find(std::string(name));
  if (found == source.classes().end()) return false;
  const TSNode bases = field(source.scopes()[found->second.scope].node, "superclasses");
  for (uint32_t i = 0, n = ts_node_is_null(bases) ? 0 : ts_node_named_child_count(bases); i < n;
       ++i) {
    if (is_hf_trainer(source.qualify(ts_node_named_child(bases, i)))) return true;
  }
  return false;
}

// Where a name or `self.x` can be set again: the node's text, else empty.
std::string_view settable(const Source& source, TSNode node) {
  if (is(node, "identifier")) return source.text(node);
  if (is(node, "attribute") && is(field(node, fields().object), "identifier") &&
      source.text(field(node, fields().object)) == "self") {
    return source.text(node);
  }
  return {};
}

// A value as a launcher gives it back: a module on its device; a loader
// stays a loader (its batches are placed: FlowRun::loaders_placed_); what
// the flow does not know (an optimizer, a loader given as a parameter) is
// on the device, so that what it yields is too.
Value launched(const Value& v) {
  if (v.kind == Kind::kLoader || v.kind == Kind::kDataset) return v;
  Value out;
  if (v.kind == Kind::kModule || v.cls >= 0) {
    out = v;
    out.kind = Kind::kModule;
    out.origin = Origin::kNone;
    out.held_place = Place::kUnknown;
    out.held_origin = Origin::kNone;
    out.move_skipped = false;
  } else if (v.kind != Kind::kUnknown || v.place != Place::kUnknown) {
    return Value{};
  }
  out.place = Place::kDevice;
  return out;
}

}  // namespace

namespace {

Framework framework_call(const Source& source, const Call& call, bool accelerate, bool fabric,
                         bool hugging_face) {
  const std::string& q = call.qualified;
  if (!q.empty()) {
    if (q == "ignite.distributed.auto_model" || q == "ignite.distributed.auto.auto_model") {
      return Framework::kLauncher;
    }
    if (q == "torch.compile" || q == "torch.jit.script" || q == "torch.jit.trace") {
      return Framework::kKeeps;
    }
    if (q == "ignite.engine.create_supervised_trainer" ||
        q == "ignite.engine.create_supervised_evaluator") {
      return Framework::kEngine;
    }
    return is_hf_trainer(q) ? Framework::kTrainer : Framework::kNone;
  }
  const std::string_view m = call.method;
  if (m == "unwrap_model" && accelerate &&
      last_name_says(source.text(call.object), "accelerator")) {
    return Framework::kKeeps;
  }
  if (m == "fit" || m == "validate" || m == "test" || m == "predict") {
    const TSNode made = value_of_object(source, call.object, call.scope);
    return is(made, "call") && is_lightning_trainer(source.qualify(field(made, fields().function)))
               ? Framework::kReleases
               : Framework::kNone;
  }
  if (m == "prepare" || m == "prepare_model" || m == "setup" || m == "setup_module") {
    const TSNode made = value_of_object(source, call.object, call.scope);
    if (is(made, "call")) {
      return is_launcher_class(source.qualify(field(made, fields().function))) &&
                     !keeps_on_host(source, made)
                 ? Framework::kLauncher
                 : Framework::kNone;
    }
    // An accelerator or a fabric the function was given.
    const std::string_view object = source.text(call.object);
    const bool prepared = accelerate && (m == "prepare" || m == "prepare_model") &&
                          last_name_says(object, "accelerator");
    const bool set_up =
        fabric && (m == "setup" || m == "setup_module") && last_name_says(object, "fabric");
    return prepared || set_up ? Framework::kLauncher : Framework::kNone;
  }
  if (!hugging_face || !ts_node_is_null(call.object)) return Framework::kNone;
  const TSNode function = field(call.node, fields().function);
  if (is(function, "identifier") && derives_hf_trainer(source, source.text(function))) {
    return Framework::kTrainer;
  }
  return Framework::kNone;
}

}  // namespace

std::vector<FrameworkCall> framework_calls(const Source& source) {
  const bool accelerate = imports_any(source, {"accelerate"});
  const bool fabric = imports_any(source, {"lightning", "lightning_fabric"});
  const bool hugging_face = imports_any(source, {"transformers", "trl"});
  std::vector<FrameworkCall> out;
  for (const Call& call : source.calls()) {
    const Framework f = framework_call(source, call, accelerate, fabric, hugging_face);
    if (f != Framework::kNone) out.push_back({ts_node_start_byte(call.node), f, call.scope});
  }
  std::sort(out.begin(), out.end(),
            [](const FrameworkCall& a, const FrameworkCall& b) { return a.start < b.start; });
  return out;
}

// fairseq's `utils.move_to_cuda(sample)`, Accelerate's
// `send_to_device(batch, device)` and Lightning's
// `move_data_to_device(batch, device)` move every tensor of what they are
// given (a tensor, a dict or list of them) to the device: what they give is
// there. To the host, or to a device the flow cannot tell, nothing is known.
std::optional<Value> FlowRun::container_move(TSNode call, std::string_view qualified,
                                             Frame& frame) {
  static constexpr std::array<std::string_view, 8> kToDevice = {
      "accelerate.utils.send_to_device",
      "accelerate.utils.operations.send_to_device",
      "lightning.fabric.utilities.move_data_to_device",
      "lightning.fabric.utilities.apply_func.move_data_to_device",
      "lightning_fabric.utilities.apply_func.move_data_to_device",
      "lightning.pytorch.utilities.move_data_to_device",
      "pytorch_lightning.utilities.move_data_to_device",
      "pytorch_lightning.utilities.apply_func.move_data_to_device"};
  // Most calls end otherwise: a look at the last letter first.
  if (qualified.empty() || (qualified.back() != 'a' && qualified.back() != 'e')) {
    return std::nullopt;
  }
  auto named = [&](std::string_view last) {
    return qualified.size() > last.size() &&
           qualified.compare(qualified.size() - last.size(), last.size(), last) == 0 &&
           qualified[qualified.size() - last.size() - 1] == '.';
  };
  if (!named("move_to_cuda") && !named("send_to_device") && !named("move_data_to_device")) {
    return std::nullopt;
  }
  const bool cuda = qualified == "fairseq.utils.move_to_cuda";
  if (!cuda && std::find(kToDevice.begin(), kToDevice.end(), qualified) == kToDevice.end()) {
    return std::nullopt;
  }
  const std::vector<Arg> args = eval_args(call, frame);
  if (args.empty() || !args[0].keyword.empty() || args[0].in_sequence) return Value{};
  Place target = Place::kDevice;
  if (!cuda) {
    const Arg* device = keyword_arg(args, "device");
    if (device == nullptr && args.size() > 1 && args[1].keyword.empty()) device = &args[1];
    target = device == nullptr ? Place::kUnknown : device_of(device->node, frame);
  }
  if (target != Place::kDevice) return Value{};
  Value v = args[0].value;
  v.place = target;
  v.origin = Origin::kNone;
  v.made = TSNode{};
  v.pinned = false;
  v.registered = false;
  v.keys = -1;  // (every entry moved)
  if (v.kind == Kind::kList) {
    v.element_place = target;
    v.element_origin = Origin::kNone;
    v.element_made = TSNode{};
  }
  return v;
}

std::optional<Value> FlowRun::eval_framework(TSNode call, Framework framework,
                                             const std::vector<Arg>& args, Frame& frame) {
  std::vector<const Arg*> positional;
  for (const Arg& a : args) {
    if (a.keyword.empty() && !a.in_sequence) positional.push_back(&a);
  }
  if (framework == Framework::kKeeps) {
    if (positional.empty() || has_splat(args)) return std::nullopt;
    return positional[0]->value;
  }
  if (framework == Framework::kLauncher) {
    if (has_splat(args)) return Value{};
    std::vector<Value> parts;
    Value element;
    element.kind = Kind::kNone;
    for (const Arg* a : positional) {
      parts.push_back(launched(a->value));
      element = join(element, parts.back());
      // The modules it is given are moved in place.
      const std::string_view name = settable(source_, a->node);
      if (!name.empty() && (a->value.kind == Kind::kModule || a->value.cls >= 0)) {
        frame.env.set(name, parts.back());
      }
    }
    if (parts.size() == 1) return parts[0];
    last_tuple_ = parts;
    return list_of(element);
  }
  const Arg* model = keyword_arg(args, "model");
  if (model == nullptr && !positional.empty()) model = positional[0];
  if (model == nullptr) return std::nullopt;
  if (framework == Framework::kReleases) {
    // Lightning's strategy moves the module back to the CPU when the run
    // ends (its teardown).
    const std::string_view name = settable(source_, model->node);
    const Value& m = model->value;
    // (What fit() is given is a LightningModule, known or not.)
    if (!name.empty() && (m.kind == Kind::kModule || m.cls >= 0 || m.kind == Kind::kUnknown)) {
      Value released = m;
      released.kind = Kind::kModule;
      released.place = Place::kHost;
      released.origin = Origin::kReleased;
      released.made = call;
      released.passed = false;
      released.move_skipped = false;
      frame.env.set(name, released);
    }
    return std::nullopt;
  }
  if (framework == Framework::kEngine) {
    // The batches go to device=, the model stays where it is.
    const Arg* device = keyword_arg(args, "device");
    const Value& m = model->value;
    if (device != nullptr && device_of(device->node, frame) == Place::kDevice &&
        m.kind == Kind::kModule && m.place == Place::kHost && m.origin == Origin::kUnmovedModule) {
      Value batch;
      batch.kind = Kind::kTensor;
      batch.place = Place::kDevice;
      out_.meetings_.push_back({call, model->node, m, batch, frame.scope});
    }
    return std::nullopt;
  }
  // A Hugging Face trainer moves its model to its device as it is made
  // (not where the file keeps it on the CPU: `use_cpu=True`, `no_cuda=True`).
  const std::string_view name = settable(source_, model->node);
  const Value& m = model->value;
  if (name.empty() || !(m.kind == Kind::kModule || m.cls >= 0) || m.place == Place::kDevice ||
      source_.text().find("use_cpu") != std::string_view::npos ||
      source_.text().find("no_cuda") != std::string_view::npos) {
    return std::nullopt;
  }
  frame.env.set(name, launched(m));
  return std::nullopt;
}

std::optional<Value> FlowRun::pretrained_model(TSNode call, const std::vector<Arg>& args,
                                               Frame& frame) {
  // Loaded where no device_map (nor quantization, which puts it on the GPU)
  // says otherwise, it is on the CPU; with a device's device_map (`"auto"`,
  // `"cuda"`, `0`, a device) or quantized, on that device.
  bool placed = false;
  for (const char* key : {"device_map", "load_in_8bit", "load_in_4bit", "quantization_config"}) {
    placed = placed || keyword_arg(args, key) != nullptr;
  }
  const Arg* map = keyword_arg(args, "device_map");
  if (placed && map != nullptr && device_of(map->node, frame) != Place::kDevice) {
    return std::nullopt;
  }
  Value v;
  v.kind = Kind::kModule;
  v.place = placed ? Place::kDevice : Place::kHost;
  v.origin = placed ? Origin::kNone : Origin::kUnmovedModule;
  v.made = call;
  return v;
}

bool FlowRun::host_output(const Value& callee, const std::vector<Arg>& args) const {
  if (const Arg* type = keyword_arg(args, "output_type")) {
    return asks_no_tensor(string_value(source_, type->node));
  }
  if (std::any_of(args.begin(), args.end(), [](const Arg& a) {
        return is(a.node, "dictionary_splat") && a.value.asks_host_output;
      })) {
    return true;
  }
  // `pipe(**inputs)` of an object not known as a module, given no tensor
  // the flow knows: the keywords it cannot see may ask for arrays or images.
  return callee.kind == Kind::kUnknown && has_keyword_splat(args) &&
         std::none_of(args.begin(), args.end(), [](const Arg& a) {
           const Value e = effective(a.value);
           return e.kind == Kind::kTensor || device_value(e);
         });
}

namespace {

// Whether a key and a value (string literals) ask a pipeline for what is no
// tensor: `"output_type"` and anything but "pt" or "latent". The key's text
// first: most dicts' pairs are read here.
bool host_output_pair(const Source& source, TSNode key, TSNode value) {
  const std::string_view text = source.text(key);
  if (text.size() != 13 || text.substr(1, 11) != "output_type") return false;
  return asks_no_tensor(string_value(source, value));
}

}  // namespace

bool asks_host_output(const Source& source, TSNode node) {
  if (is(node, "assignment")) {
    const TSNode left = field(node, fields().left);
    if (is(left, "subscript")) {
      return host_output_pair(source, field(left, fields().subscript), field(node, fields().right));
    }
    node = field(node, fields().right);
  }
  if (!is(node, "dictionary")) return false;
  static const TSFieldId kKey = field_id("key");
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    const TSNode pair = ts_node_named_child(node, i);
    if (is(pair, "pair") &&
        host_output_pair(source, field(pair, kKey), field(pair, fields().value))) {
      return true;
    }
  }
  return false;
}

bool FlowRun::keywords_asked(TSNode statement, Frame& frame) {
  // `inputs["output_type"] = "np"`; `batched = {}`, then
  // `batched.update(inputs)`: the dict asks what they ask.
  TSNode object{};
  if (is(statement, "assignment")) {
    if (!asks_host_output(source_, statement)) return false;
    object = field(field(statement, fields().left), fields().value);
  } else {
    const std::vector<TSNode> given = source_.positional(statement);
    if (given.size() != 1 || !eval(given[0], frame).asks_host_output) return false;
    object = field(field(statement, fields().function), fields().object);
  }
  const Value* dict = frame.env.find(source_.text(object));
  Value updated = dict != nullptr ? *dict : list_of(Value{});
  updated.asks_host_output = true;
  frame.env.set(source_.text(object), updated);
  return true;
}

bool host_images(const Source& source, TSNode object) {
  if (!is(object, "call")) return false;
  const TSNode type = source.keyword(object, "output_type");
  return ts_node_is_null(type) || asks_no_tensor(string_value(source, type));
}

bool lightning_module(const Source& source, int class_scope) {
  const TSNode bases = field(source.scopes()[class_scope].node, "superclasses");
  return !ts_node_is_null(bases) &&
         source.text(bases).find("LightningModule") != std::string_view::npos;
}

Handed framework_handed(const Source& source, int scope) {
  const Scope& method = source.scopes()[scope];
  if (method.owner_class < 0) return Handed::kNone;
  const std::string& name = method.name;
  // A Trainer's compute_loss(self, model, inputs): the Trainer has moved
  // the model to its device, and the inputs with it.
  if (name == "compute_loss") {
    const TSNode bases = field(source.scopes()[method.owner_class].node, "superclasses");
    return !ts_node_is_null(bases) && source.text(bases).find("Trainer") != std::string_view::npos
               ? Handed::kTrainerLoss
               : Handed::kNone;
  }
  const bool step = name == "training_step" || name == "validation_step" || name == "test_step" ||
                    name == "predict_step";
  const bool epoch_end =
      name == "training_epoch_end" || name == "validation_epoch_end" || name == "test_epoch_end";
  if ((!step && !epoch_end) || !lightning_module(source, method.owner_class)) {
    return Handed::kNone;
  }
  const auto c = source.classes().find(source.scopes()[method.owner_class].name);
  if (c == source.classes().end() || !c->second.is_module) return Handed::kNone;
  return step ? Handed::kStepBatch : Handed::kStepOutputs;
}

}  // namespace devcheck::lint::detail
