// DC121 layer-added-after-move: a model moved to its device whose layers are
// then replaced or added on the CPU: `model.fc = nn.Linear(...)` after
// `model.to(device)`, or a
// method of one of the file's classes that builds `self.<layer> =
// nn.Linear(...)` without device= called on the moved model
// (`model.reset_classifier(10)`). The new layer's parameters are on the CPU
// while the rest is on the GPU: the next forward fails, an optimizer or DDP
// built after sees two devices. Not when the model is moved again after.
#include <algorithm>
#include <cctype>

#include "../common.h"
#include "../rule.h"
#include "../stack.h"

namespace devcheck::lint::detail {
namespace {

bool module_class(const Source& source, const std::string& qualified, TSNode function) {
  if (qualified.rfind("torch.nn.", 0) == 0) {
    const std::string_view layer = std::string_view(qualified).substr(qualified.rfind('.') + 1);
    return layer_has_parameters(layer) && !layer.empty() &&
           std::isupper(static_cast<unsigned char>(layer[0])) != 0;
  }
  if (!is(function, "identifier")) return false;
  const auto c = source.classes().find(std::string(source.text(function)));
  return c != source.classes().end() && c->second.is_module;
}

// The first whole move of `name` in `moves` after `from` (a null node: none).
TSNode moved_after(const std::vector<WholeMove>& moves, std::string_view name, uint32_t from) {
  for (const WholeMove& m : moves) {
    if (m.name == name && ts_node_start_byte(m.call) > from) return m.call;
  }
  return TSNode{};
}

// The move of `name` before `at` in `moves` (a null node: none).
TSNode moved_before(const std::vector<WholeMove>& moves, std::string_view name, uint32_t at) {
  TSNode found{};
  for (const WholeMove& m : moves) {
    if (m.name == name && ts_node_start_byte(m.call) < at) found = m.call;
  }
  return found;
}

// Layers a method builds into `self.<x>` without device=, in its own scope.
std::vector<TSNode> layers_built(const Source& source, int method) {
  std::vector<TSNode> out;
  for (const Call& call : source.calls()) {
    if (call.scope != method || call.moved) continue;
    const TSNode function = field(call.node, fields().function);
    if (!module_class(source, call.qualified, function)) continue;
    if (!ts_node_is_null(source.keyword(call.node, "device")) || source.has_splat(call.node)) {
      continue;
    }
    const TSNode parent = ts_node_parent(call.node);
    if (!is(parent, "assignment") || !ts_node_eq(field(parent, fields().right), call.node))
      continue;
    const TSNode left = field(parent, fields().left);
    if (is(left, "attribute") && source.text(field(left, fields().object)) == "self") {
      out.push_back(call.node);
    }
  }
  return out;
}

// The assignments `x.attr = name` in `node` (not in nested definitions).
void assignments_of(const Source& source, TSNode node, std::string_view name,
                    std::vector<TSNode>& out) {
  if (is(node, "function_definition") || is(node, "class_definition") || stack_nearly_exhausted()) {
    return;
  }
  if (is(node, "assignment") && is(field(node, fields().left), "attribute") &&
      is(field(node, fields().right), "identifier") &&
      source.text(field(node, fields().right)) == name) {
    out.push_back(node);
  }
  for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
    assignments_of(source, ts_node_named_child(node, i), name, out);
  }
}

// `head = Head(config)` made on the CPU, then `model.head = head` after
// model was moved (and head not moved in between).
void layer_by_name(const RuleContext& c, const Call& call, const std::vector<WholeMove>& moves) {
  const Source& source = c.source;
  const TSNode parent = ts_node_parent(call.node);
  if (!is(parent, "assignment") || !ts_node_eq(field(parent, fields().right), call.node) ||
      !is(field(parent, fields().left), "identifier")) {
    return;
  }
  const std::string_view layer = source.text(field(parent, fields().left));
  std::vector<TSNode> sets;
  const TSNode body = field(source.scopes()[call.scope].node, fields().body);
  assignments_of(source, ts_node_is_null(body) ? source.scopes()[call.scope].node : body, layer,
                 sets);
  for (const TSNode set : sets) {
    const uint32_t at = ts_node_start_byte(set);
    if (at < ts_node_start_byte(call.node)) continue;
    if (!ts_node_is_null(moved_before(moves, layer, at)) &&
        ts_node_start_byte(moved_before(moves, layer, at)) > ts_node_start_byte(call.node)) {
      continue;  // the layer itself was moved
    }
    const TSNode left = field(set, fields().left);
    const std::string_view model = source.text(field(left, fields().object));
    const TSNode before = moved_before(moves, model, at);
    if (ts_node_is_null(before) || !ts_node_is_null(moved_after(moves, model, at))) continue;
    c.sink.report(field(set, fields().right), "DC121",
                  std::string(source.text(left)) + " is replaced by " + std::string(layer) +
                      ", a layer made on the CPU (" + line_of(call.node) + "), after " +
                      std::string(model) + " was moved to its device (" + line_of(before) +
                      "): move it again after, or make the change first");
  }
}

void check(const RuleContext& c) {
  const Source& source = c.source;
  std::vector<int> scopes;
  for (const Call& call : source.calls()) {
    if (call.method == "to" || call.method == "cuda") scopes.push_back(call.scope);
  }
  std::sort(scopes.begin(), scopes.end());
  scopes.erase(std::unique(scopes.begin(), scopes.end()), scopes.end());
  for (const int scope : scopes) {
    const std::vector<WholeMove> moves = whole_moves(source, scope);
    if (moves.empty()) continue;
    for (const Call& call : source.calls()) {
      if (call.scope != scope || call.moved) continue;
      const uint32_t at = ts_node_start_byte(call.node);
      const TSNode function = field(call.node, fields().function);
      // `model.fc = nn.Linear(...)`.
      std::string_view model;
      std::string what;
      const TSNode parent = ts_node_parent(call.node);
      // Not convert_sync_batchnorm(model): the layers it makes take the old
      // ones' parameters and buffers (torch 1.13's batchnorm.py and later),
      // so they are where the model is.
      if (module_class(source, call.qualified, function) &&
          ts_node_is_null(source.keyword(call.node, "device")) && is(parent, "assignment") &&
          ts_node_eq(field(parent, fields().right), call.node) &&
          is(field(parent, fields().left), "attribute")) {
        const TSNode left = field(parent, fields().left);
        model = source.text(field(left, fields().object));
        what = std::string(source.text(left)) + " is replaced by a layer made on the CPU";
      }
      if (model.empty() && module_class(source, call.qualified, function) &&
          ts_node_is_null(source.keyword(call.node, "device"))) {
        layer_by_name(c, call, moves);
        continue;
      }
      if (!model.empty()) {
        const TSNode before = moved_before(moves, model, at);
        if (!ts_node_is_null(before) && ts_node_is_null(moved_after(moves, model, at))) {
          c.sink.report(call.node, "DC121",
                        what + " after " + std::string(model) + " was moved to its device (" +
                            line_of(before) + "): move it again after, or make the change first");
        }
        continue;
      }
      // `model.reset_classifier(10)` of a class of this file whose method
      // builds layers into self.
      if (call.method.empty() || ts_node_is_null(call.object)) continue;
      const std::string_view object = source.text(call.object);
      const TSNode before = moved_before(moves, object, at);
      if (ts_node_is_null(before) || !ts_node_is_null(moved_after(moves, object, at))) continue;
      for (const auto& [name, info] : source.classes()) {
        if (!info.is_module) continue;
        for (int s = info.scope + 1; s < static_cast<int>(source.scopes().size()); ++s) {
          const Scope& method = source.scopes()[s];
          if (method.owner_class != info.scope || method.name != call.method ||
              method.name == "__init__" || method.name == "forward") {
            continue;
          }
          for (const TSNode layer : layers_built(source, s)) {
            c.sink.report(layer, "DC121",
                          std::string(source.text(ts_node_named_child(ts_node_parent(layer), 0))) +
                              " is made on the CPU by " + name + "." + method.name +
                              "(), called on " + std::string(object) + " (" + line_of(call.node) +
                              ") after it was moved to its device (" + line_of(before) +
                              "): make it where the module is (device=...), or move " +
                              std::string(object) + " again");
          }
        }
      }
    }
  }
}

}  // namespace

extern const Rule kRuleDC121;
const Rule kRuleDC121 = {
    {"DC121", "layer-added-after-move",
     "A layer added to (or replaced in) a model after the model was moved to its device.", false},
    "import torch.nn as nn\n"
    "def prepare(model, device):\n"
    "    model.to(device)\n"
    "    model.fc = nn.Linear(512, 10)\n",
    "import torch.nn as nn\n"
    "def prepare(model, device):\n"
    "    model.fc = nn.Linear(512, 10)\n"
    "    model.to(device)\n",
    check};

}  // namespace devcheck::lint::detail
