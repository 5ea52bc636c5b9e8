// used_as_tensor (flow.h): what the uses of a name the flow has no value for
// say it holds.
#include <array>
#include <string_view>

#include "../common.h"
#include "flow.h"
#include "run.h"

namespace devcheck::lint::detail {
namespace {

template <std::size_t N>
bool among(std::string_view word, const std::array<std::string_view, N>& words) {
  for (std::string_view w : words) {
    if (w == word) return true;
  }
  return false;
}

struct Evidence {
  bool tensor = false;
  bool module = false;
};

void look(const Source& source, TSNode node, std::string_view name, Evidence& e, int depth) {
  if (depth > 1500 || e.module) return;
  if (is(node, "identifier")) {
    if (source.text(node) != name) return;
    const TSNode parent = ts_node_parent(node);
    if (is(parent, "attribute") && ts_node_eq(field(parent, fields().object), node)) {
      static constexpr std::array<std::string_view, 26> kTensor = {
          "shape",     "dtype",       "ndim",        "is_cuda",    "size",      "dim",
          "numel",     "item",        "numpy",       "view",       "unsqueeze", "squeeze",
          "backward",  "permute",     "transpose",   "contiguous", "reshape",   "detach",
          "argmax",    "softmax",     "masked_fill", "tolist",     "long",      "float",
          "new_zeros", "index_select"};
      static constexpr std::array<std::string_view, 14> kModule = {
          "parameters",      "named_parameters", "train",    "eval",         "state_dict",
          "load_state_dict", "modules",          "children", "zero_grad",    "apply",
          "register_buffer", "add_module",       "forward",  "named_modules"};
      const std::string_view attribute = source.text(field(parent, fields().attribute));
      e.tensor = e.tensor || among(attribute, kTensor);
      e.module = e.module || among(attribute, kModule);
      return;
    }
    if (is(parent, "subscript") && ts_node_eq(field(parent, fields().value), node)) {
      const TSNode index = field(parent, fields().subscript);
      e.tensor = e.tensor || !(is(index, "string") || is(index, "concatenated_string"));
      return;
    }
    if (is(parent, "call") && ts_node_eq(field(parent, fields().function), node)) {
      e.module = true;
      return;
    }
    if (is(parent, "binary_operator")) {
      e.tensor = true;
      return;
    }
    const TSNode list = is(parent, "list") || is(parent, "tuple") ? ts_node_parent(parent) : parent;
    if (is(list, "argument_list")) {
      const TSNode call = ts_node_parent(list);
      e.tensor = e.tensor || computes_on_arguments(source.qualify(field(call, fields().function)));
    }
    return;
  }
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i) look(source, ts_node_child(node, i), name, e, depth + 1);
}

}  // namespace

bool used_as_tensor(const Source& source, TSNode scope_node, std::string_view name,
                    bool passed_to_module) {
  Evidence e;
  e.tensor = passed_to_module;
  look(source, scope_node, name, e, 0);
  return e.tensor && !e.module;
}

}  // namespace devcheck::lint::detail
