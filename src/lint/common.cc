#include "common.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "rule.h"

namespace devcheck::lint::detail {

void Sink::report(TSNode node, std::string_view rule, std::string message, std::optional<Fix> fix) {
  Finding f;
  f.path = path_;
  const TSPoint start = ts_node_start_point(node);
  const TSPoint end = ts_node_end_point(node);
  f.line = static_cast<int>(start.row) + 1;
  f.column = static_cast<int>(start.column) + 1;
  f.end_line = static_cast<int>(end.row) + 1;
  f.end_column = static_cast<int>(end.column) + 1;
  f.rule = std::string(rule);
  f.message = std::move(message);
  f.fix = std::move(fix);
  findings_.push_back(std::move(f));
}

std::optional<std::string> string_value(const Source& source, TSNode node) {
  if (!is(node, "string")) return std::nullopt;
  std::string out;
  const uint32_t count = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode part = ts_node_named_child(node, i);
    if (is(part, "interpolation")) return std::nullopt;
    if (is(part, "string_content")) out += source.text(part);
  }
  return out;
}

bool is_cuda_string(const std::optional<std::string>& s) {
  return s && (*s == "cuda" || (s->rfind("cuda:", 0) == 0));
}

bool is_cpu_string(const std::optional<std::string>& s) {
  return s && (*s == "cpu" || (s->rfind("cpu:", 0) == 0));
}

bool is_factory(std::string_view q) {
  // The window functions and tril/triu_indices take device= too (the
  // default device without it).
  static constexpr std::array<std::string_view, 23> kFactories = {"torch.tensor",
                                                                  "torch.zeros",
                                                                  "torch.ones",
                                                                  "torch.empty",
                                                                  "torch.full",
                                                                  "torch.arange",
                                                                  "torch.rand",
                                                                  "torch.randn",
                                                                  "torch.randint",
                                                                  "torch.randperm",
                                                                  "torch.eye",
                                                                  "torch.linspace",
                                                                  "torch.logspace",
                                                                  "torch.range",
                                                                  "torch.normal",
                                                                  "torch.empty_strided",
                                                                  "torch.hann_window",
                                                                  "torch.hamming_window",
                                                                  "torch.blackman_window",
                                                                  "torch.bartlett_window",
                                                                  "torch.kaiser_window",
                                                                  "torch.tril_indices",
                                                                  "torch.triu_indices"};
  return std::find(kFactories.begin(), kFactories.end(), q) != kFactories.end();
}

namespace {

// The value of `self.x` assigned in any method of the class of `scope`.
TSNode self_value(const Source& source, const std::string& name, int scope) {
  const int function = source.function_of(scope);
  if (function < 0) return TSNode{};
  const int owner = source.scopes()[function].owner_class;
  if (owner < 0) return TSNode{};
  TSNode found{};
  for (const Scope& s : source.scopes()) {
    if (s.owner_class != owner) continue;
    const auto it = s.assigns.find(name);
    if (it != s.assigns.end() && !it->second.empty()) found = it->second.back();
  }
  return found;
}

}  // namespace

TSNode value_of_object(const Source& source, TSNode object, int scope) {
  if (is(object, "identifier")) return source.value_of(std::string(source.text(object)), scope);
  if (is(object, "attribute") && source.text(field(object, "object")) == "self") {
    return self_value(source, std::string(source.text(object)), scope);
  }
  return TSNode{};
}

bool names_any(std::string_view text, std::initializer_list<std::string_view> words) {
  const auto same = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == static_cast<unsigned char>(b);
  };
  return std::any_of(words.begin(), words.end(), [&](std::string_view word) {
    return std::search(text.begin(), text.end(), word.begin(), word.end(), same) != text.end();
  });
}

bool within(TSNode inner, TSNode outer) {
  return !ts_node_is_null(outer) && ts_node_start_byte(inner) >= ts_node_start_byte(outer) &&
         ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

bool calls_function(const Source& source, TSNode call, int function) {
  const Scope& f = source.scopes()[function];
  const TSNode callee = field(call, "function");
  if (f.owner_class >= 0) {
    return is(callee, "attribute") && source.text(field(callee, "object")) == "self" &&
           source.text(field(callee, "attribute")) == f.name;
  }
  return is(callee, "identifier") && source.text(callee) == f.name;
}

bool decorated_for_cuda(const Source& source, TSNode definition, TSNode except, bool lists_gate) {
  if (!is(definition, "decorated_definition")) return false;
  const uint32_t count = ts_node_named_child_count(definition);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode decorator = ts_node_named_child(definition, i);
    if (!is(decorator, "decorator") || ts_node_eq(decorator, except)) continue;
    const std::string_view text = source.text(decorator);
    if (names_cuda_or_gpu(text) && (lists_gate || !names_any(text, {"parametri", "parameteri"})))
      return true;
  }
  return false;
}

bool in_definition_for_cuda(const Source& source, int scope, bool lists_gate) {
  for (int s = scope; s > 0; s = source.scopes()[s].parent) {
    if (decorated_for_cuda(source, ts_node_parent(source.scopes()[s].node), TSNode{}, lists_gate)) {
      return true;
    }
  }
  return false;
}

bool is_device_name(std::string_view name) {
  const auto dot = name.rfind('.');
  const std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  std::string lower(last);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "dev" || lower.find("device") != std::string::npos;
}

bool layer_has_parameters(std::string_view layer) {
  static constexpr std::array<std::string_view, 20> kPrefixes = {
      "Linear",      "Bilinear",  "Lazy",       "Conv",         "Embedding",
      "BatchNorm",   "LayerNorm", "GroupNorm",  "InstanceNorm", "SyncBatchNorm",
      "RMSNorm",     "LSTM",      "GRU",        "RNN",          "MultiheadAttention",
      "Transformer", "PReLU",     "Sequential", "ModuleList",   "ModuleDict"};
  return std::any_of(kPrefixes.begin(), kPrefixes.end(),
                     [&](std::string_view p) { return layer.rfind(p, 0) == 0; });
}

bool uses_a_device(const Source& source) {
  return std::any_of(source.scopes().begin(), source.scopes().end(),
                     [](const Scope& s) { return s.uses_device; }) ||
         std::any_of(source.calls().begin(), source.calls().end(), [&](const Call& c) {
           if ((c.method == "cuda" && c.qualified.empty()) || c.qualified == "torch.device") {
             return true;
           }
           if (c.method != "to" || !c.qualified.empty()) return false;
           const std::vector<TSNode> args = source.positional(c.node);
           const TSNode target = args.empty() ? source.keyword(c.node, "device") : args[0];
           return !ts_node_is_null(target) &&
                  names_any(source.text(target), {"cuda", "gpu", "rank", "device"});
         });
}

std::string line_of(TSNode node) {
  return "line " + std::to_string(ts_node_start_point(node).row + 1);
}

std::string where_in(const Source& source, TSNode node) {
  const int function = source.function_of(source.scope_of(node));
  return function < 0 ? std::string("the module's code")
                      : "'" + source.scopes()[function].name + "'";
}

TSNode enclosing_loop(TSNode node) {
  for (const TSNode n : ancestors(node)) {
    if (is(n, "function_definition") || is(n, "class_definition")) return TSNode{};
    if (is(n, "for_statement")) return n;
  }
  return TSNode{};
}

std::vector<TSNode> ancestors(TSNode node) {
  std::vector<TSNode> path;  // root first
  if (ts_node_is_null(node)) return path;
  const uint32_t start = ts_node_start_byte(node);
  const uint32_t end = ts_node_end_byte(node);
  const TSNode root = ts_tree_root_node(node.tree);
  TSTreeCursor cursor = ts_tree_cursor_new(root);
  TSNode current = root;
  bool found = true;
  while (found && !ts_node_eq(current, node)) {
    path.push_back(current);
    found = false;
    if (!ts_tree_cursor_goto_first_child(&cursor)) break;
    do {
      // The child holding the node's bytes (children do not overlap; a child
      // of no bytes holds only itself).
      const TSNode child = ts_tree_cursor_current_node(&cursor);
      const uint32_t child_start = ts_node_start_byte(child);
      const uint32_t child_end = ts_node_end_byte(child);
      if (ts_node_eq(child, node) ||
          (child_start <= start && end <= child_end && child_start < child_end)) {
        current = child;
        found = true;
      }
    } while (!found && ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  if (!found) {
    // Not reached by bytes (a node of no bytes among others at its place):
    // up one parent at a time.
    path.clear();
    for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
      path.push_back(n);
    }
    return path;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace devcheck::lint::detail

namespace devcheck::lint::detail {

std::vector<WholeMove> whole_moves(const Source& source, int scope) {
  std::vector<WholeMove> out;
  for (const Call& call : source.calls()) {
    if (call.scope != scope || (call.method != "to" && call.method != "cuda") ||
        !call.qualified.empty()) {
      continue;
    }
    TSNode object = call.object;
    const TSNode parent = ts_node_parent(call.node);
    // `net = DataParallel(net).cuda()`: net moved, through its wrapper.
    if (is(object, "call") && is(parent, "assignment")) {
      const std::vector<TSNode> wrapped = source.positional(object);
      if (!wrapped.empty() &&
          source.text(wrapped[0]) == source.text(field(parent, fields().left))) {
        object = wrapped[0];
      }
    }
    if (!is(object, "identifier") &&
        !(is(object, "attribute") && source.text(field(object, fields().object)) == "self")) {
      continue;
    }
    const bool statement = is(parent, "expression_statement");
    const bool rebound = is(parent, "assignment") &&
                         source.text(field(parent, fields().left)) == source.text(object) &&
                         ts_node_eq(field(parent, fields().right), call.node);
    if (!statement && !rebound) continue;
    if (call.method == "to") {
      const std::vector<TSNode> args = source.positional(call.node);
      const TSNode target = args.empty() ? source.keyword(call.node, "device") : args[0];
      if (ts_node_is_null(target)) continue;
      const std::string_view text = source.text(target);
      if (text.find("float") != std::string_view::npos ||
          text.find("half") != std::string_view::npos ||
          text.find("dtype") != std::string_view::npos ||
          text.find("bfloat") != std::string_view::npos) {
        continue;
      }
      auto s = string_value(source, target);
      // `torch.device("cpu")`: the string inside.
      if (!s && is(target, "call") &&
          source.qualify(field(target, fields().function)) == "torch.device") {
        const std::vector<TSNode> device_args = source.positional(target);
        if (device_args.size() == 1) s = string_value(source, device_args[0]);
      }
      if (is_cpu_string(s) || s == "meta") continue;
    }
    out.push_back({call.node, source.text(object)});
  }
  return out;
}

bool parameter_of(const Source& source, std::string_view name, int function,
                  TSNode* default_value) {
  const TSNode parameters = field(source.scopes()[function].node, "parameters");
  for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
    const TSNode parameter = ts_node_named_child(parameters, i);
    TSNode p = parameter;
    if (!is(p, "identifier")) {
      p = is(field(p, "name"), "identifier") ? field(p, "name") : ts_node_named_child(p, 0);
    }
    if (is(p, "identifier") && source.text(p) == name) {
      if (default_value != nullptr) *default_value = field(parameter, "value");
      return true;
    }
  }
  return false;
}

}  // namespace devcheck::lint::detail
