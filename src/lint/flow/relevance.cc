// The device flow's relevance (run.h): which functions can tell it
// anything a rule reads (the others run only when called, for what they
// return) and which statements can tell it nothing (data tables, logging,
// plain Python), skipped.
#include <algorithm>
#include <cctype>

#include "../common.h"
#include "run.h"

namespace devcheck::lint::detail {

void FlowRun::find_relevant() {
  const auto& scopes = source_.scopes();
  relevant_.assign(scopes.size(), false);
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    if (scopes[s].owner_class >= 0) methods_.emplace_back(scopes[s].owner_class, scopes[s].name, s);
  }
  std::sort(methods_.begin(), methods_.end());
  const bool tokenizers = source_.mentions("return_tensors");
  // `factory.create(shape)` on an object the flow knows nothing of, where one
  // class of the file alone has `create` and it makes a model of the file:
  // what it returns is that model (calls.cc).
  std::vector<bool> makes_module(scopes.size(), false);
  std::vector<const Call*> on_objects;
  for (const Call& call : source_.calls()) {
    const std::string& q = call.qualified;
    // A list a class keeps, filled by one method (`self.vals.append(v)`) and
    // read by another (`np.mean(self.vals)`).
    const bool fills_attribute = call.method == "append" && is(call.object, "attribute") &&
                                 source_.text(field(call.object, fields().object)) == "self";
    bool r = fills_attribute || call.method == "to" || call.method == "cuda" ||
             call.method == "cpu" || call.method == "numpy" || call.method == "pin_memory" ||
             call.method == "save_hyperparameters" ||
             (tokenizers && !ts_node_is_null(source_.keyword(call.node, "return_tensors")));
    if (!r && !q.empty()) {
      r = is_factory(q) || q == "torch.from_numpy" || q == "torch.as_tensor" ||
          q == "torch.asarray" || reads_as_numpy(q) || legacy_type_on_cuda(q) ||
          q.rfind("torchvision.datasets.", 0) == 0 || q.find("DataLoader") != std::string::npos ||
          q.find("TensorDataset") != std::string::npos || q == "torch.Generator" ||
          q.find("Parameter") != std::string::npos || is_module_class(q) || is_wrapper(q) ||
          ((q == "torch.load" || q == "torch.jit.load") &&
           !ts_node_is_null(source_.keyword(call.node, "map_location"))) ||
          is_torchvision_model(q) || is_pretrained_model(q) || is_metric_class(q) ||
          image_to_tensor(source_, call.node, q) != ImageToTensor::kNo;
    }
    if (!r && q.empty()) {
      const TSNode function = field(call.node, fields().function);
      if (is(function, "identifier")) {
        const std::string_view name = source_.text(function);
        const auto made = source_.classes().find(std::string(name));
        if (made != source_.classes().end() && made->second.is_module) {
          makes_module[call.scope] = true;
        }
        // `self(x)` in a method: the module's forward, on its device.
        r = functions_.count(name) != 0 || source_.classes().count(std::string(name)) != 0 ||
            out_.moved_anywhere(name) || (name == "self" && scopes[call.scope].owner_class >= 0);
      } else if (is(function, "subscript")) {
        r = source_.qualify(field(function, fields().value)) == "torchvision.models.__dict__";
      } else if (is(call.object, "identifier") && source_.text(call.object) == "self") {
        // A method of the class (self.init_hidden()), which may return host tensors.
        const int owner = scopes[call.scope].owner_class;
        r = owner >= 0 && method_of(owner, call.method) >= 0;
      }
      // A module the class keeps (`self.head(x)`, `self.head.decode(z)`).
      if (!r && is(function, "attribute")) r = module_attribute_call(call);
      if (!r && is(call.object, "identifier") && source_.text(call.object) != "self") {
        on_objects.push_back(&call);
      }
    }
    if (r) {
      relevant_[call.scope] = true;
      relevant_calls_.push_back(ts_node_start_byte(call.node));
    }
  }
  // The calls of a framework that places what it is given.
  framework_calls_ = framework_calls(source_);
  for (const FrameworkCall& call : framework_calls_) {
    relevant_[call.scope] = true;
    relevant_calls_.push_back(call.start);
    out_.framework_moves_ = out_.framework_moves_ || call.framework == Framework::kLauncher ||
                            call.framework == Framework::kTrainer;
  }
  for (const auto& [name, info] : source_.classes()) {
    out_.framework_moves_ =
        out_.framework_moves_ || (info.is_module && lightning_module(source_, info.scope));
  }
  // The methods (not __init__ and its kind) that make a model of the file.
  std::vector<std::string_view> factories;
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    if (makes_module[s] && scopes[s].owner_class >= 0 && scopes[s].name.rfind("__", 0) != 0) {
      factories.push_back(scopes[s].name);
    }
  }
  bool added = !framework_calls_.empty();
  for (const Call* call : on_objects) {
    if (factories.empty()) break;
    if (std::find(factories.begin(), factories.end(), call->method) == factories.end()) continue;
    const int only = only_method(call->method);
    if (only < 0 || !makes_module[only]) continue;
    relevant_[call->scope] = true;
    relevant_calls_.push_back(ts_node_start_byte(call->node));
    added = true;
  }
  if (added) std::sort(relevant_calls_.begin(), relevant_calls_.end());
}

namespace {

// Whether the flow knows something of a value a rule could use (a list of
// who knows what is not that).
bool known(const Value& v) {
  // An instance of a class of the file too (`self.loss = loss`, given one),
  // or one of its functions (a closure a call returned).
  if (v.place != Place::kUnknown || v.origin != Origin::kNone || v.asks_host_output || v.cls >= 0 ||
      v.function >= 0 || v.keys >= 0) {
    return true;
  }
  if (v.kind == Kind::kList) {
    return (v.element != Kind::kUnknown && v.element != Kind::kNone) ||
           v.element_place != Place::kUnknown || v.element_origin != Origin::kNone;
  }
  return v.kind != Kind::kUnknown && v.kind != Kind::kNone;
}

// Whether `name` occurs in `text` as a whole name (not inside another).
bool names_in(std::string_view text, std::string_view name) {
  for (auto at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    const auto part = [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
    };
    if ((at == 0 || (!part(text[at - 1]) && text[at - 1] != '.')) &&
        (end == text.size() || !part(text[end]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool FlowRun::says_nothing(TSNode statement, const Frame& frame) const {
  // `outs = []`, `ys, ps = [], []` (then `outs.append(model(x))`): empty
  // lists to fill.
  if (!is(statement, "expression_statement")) return inert(statement, frame);
  if (ts_node_named_child_count(statement) == 1) {
    const TSNode assignment = ts_node_named_child(statement, 0);
    const TSNode right = field(assignment, fields().right);
    const auto empty = [](TSNode node) {
      return (is(node, "list") || is(node, "dictionary")) && ts_node_named_child_count(node) == 0;
    };
    bool all_empty = is(right, "expression_list") && ts_node_named_child_count(right) > 0;
    if (all_empty) {
      for_each_named_child(right, [&](TSNode part) { all_empty = all_empty && empty(part); });
    }
    const bool keywords =  // `{"output_type": "np"}`, `inputs["output_type"] = "np"`
        (is(right, "dictionary") || is(right, "string")) && asks_host_output(source_, assignment);
    if (is(assignment, "assignment") && (empty(right) || all_empty || keywords)) return false;
  }
  return inert(statement, frame);
}

bool FlowRun::inert(TSNode node, const Frame& frame) const {
  const uint32_t start = ts_node_start_byte(node);
  const uint32_t end = ts_node_end_byte(node);
  const auto call = std::lower_bound(relevant_calls_.begin(), relevant_calls_.end(), start);
  if (call != relevant_calls_.end() && *call < end) return false;
  const std::string_view text = source_.text(node);
  for (const auto& [name, value] : frame.env.bindings()) {
    if (known(value) && names_in(text, name)) return false;
  }
  if (frame.scope != 0) {
    const Env& globals = module_env_ != nullptr ? *module_env_ : globals_;
    for (const auto& [name, value] : globals.bindings()) {
      if (known(value) && names_in(text, name)) return false;
    }
  }
  return true;
}

bool only_when_traced(const Source& source, TSNode node) {
  TSNode child = node;
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); child = n, n = ts_node_parent(n)) {
    if ((!is(n, "if_statement") && !is(n, "elif_clause")) ||
        !ts_node_eq(field(n, "consequence"), child)) {
      continue;
    }
    const TSNode test = field(n, "condition");
    if (!is(test, "call")) continue;  // not `if not is_torch_fx_proxy(x)`
    const std::string_view text = source.text(test);
    if (text.find("is_torch_fx_proxy") != std::string_view::npos ||
        text.find("fx.Proxy") != std::string_view::npos ||
        text.find("is_fx_tracing") != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace devcheck::lint::detail
