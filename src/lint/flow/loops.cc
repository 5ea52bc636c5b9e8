// The device flow's loops (flow.h): a `for` binds what its iterable yields,
// its body runs once (what a second turn would see, the first already met),
// and a batch the body moves part of is a host batch (statements.cc runs the
// rest).
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../common.h"
#include "../grammar.h"
#include "run.h"

namespace devcheck::lint::detail {

namespace {

// The names a `for` binds (`x`, `y` of `for i, (x, y) in ...`).
void target_names(const Source& source, TSNode target, std::vector<std::string_view>& names) {
  if (is(target, "identifier")) {
    names.push_back(source.text(target));
  } else if (is(target, "pattern_list") || is(target, "tuple_pattern") ||
             is(target, "list_pattern") || is(target, "parenthesized_expression")) {
    for_each_named_child(target, [&](TSNode part) { target_names(source, part, names); });
  }
}

// Whether `body` (of the loop starting at `loop`) moves one of `target`'s
// names, or a part of one (`x.to(device)`, `batch["x"].cuda()`), to a
// device: what the loop binds there came from the host. Not a move to a
// dtype or to the CPU.
bool moves_to_device(const Source& source, TSNode target, TSNode body, uint32_t loop) {
  std::vector<std::string_view> names;
  target_names(source, target, names);
  if (names.empty() || ts_node_is_null(body)) return false;
  // And the names the body unpacks what it binds into (`x, y = batch`).
  for_each_named_child(body, [&](TSNode statement) {
    const TSNode assignment =
        is(statement, "expression_statement") ? ts_node_named_child(statement, 0) : TSNode{};
    if (!is(assignment, "assignment")) return;
    TSNode root = field(assignment, fields().right);
    while (is(root, "subscript")) root = field(root, fields().value);
    if (is(root, "identifier") &&
        std::find(names.begin(), names.end(), source.text(root)) != names.end()) {
      target_names(source, field(assignment, fields().left), names);
    }
  });
  const std::vector<Call>& calls = source.calls();
  const uint32_t start = ts_node_start_byte(body);
  const uint32_t end = ts_node_end_byte(body);
  auto it = std::lower_bound(calls.begin(), calls.end(), start, [](const Call& c, uint32_t at) {
    return ts_node_start_byte(c.node) < at;
  });
  for (; it != calls.end() && ts_node_start_byte(it->node) < end; ++it) {
    // Moves in the loop's own body, not in loops inside it (one sample at a
    // time of something else).
    if ((it->method != "to" && it->method != "cuda") || it->loop != loop) continue;
    if (it->method == "to") {
      const std::vector<TSNode> args = source.positional(it->node);
      const TSNode to = args.empty() ? source.keyword(it->node, "device") : args[0];
      if (ts_node_is_null(to) || is_dtype(source, to)) continue;
      const std::optional<std::string> text = string_value(source, to);
      if (text && !is_cuda_string(text)) continue;
    }
    TSNode root = it->object;
    while (is(root, "subscript") || is(root, "attribute")) {
      root = field(root, is(root, "subscript") ? fields().value : fields().object);
    }
    if (is(root, "identifier") &&
        std::find(names.begin(), names.end(), source.text(root)) != names.end()) {
      return true;
    }
  }
  return false;
}

}  // namespace

// What a `for` over something the flow does not know binds: where its body
// moves what it binds to a device, batches on the host (pinning unknown),
// as a DataLoader's, whatever it iterates (`for x, y in dl:`). Only over a
// name, or a call of a plain function of one (not `d.items()`).
Value FlowRun::moved_batch(const Value& element, TSNode target, TSNode iterable,
                           TSNode body) const {
  const bool named = is(iterable, "identifier") || is(iterable, "attribute");
  const bool wrapped = is(iterable, "call") &&
                       is(field(iterable, fields().function), "identifier") &&
                       !source_.positional(iterable).empty() &&
                       (is(source_.positional(iterable)[0], "identifier") ||
                        is(source_.positional(iterable)[0], "attribute"));
  if (element.kind != Kind::kUnknown || element.place != Place::kUnknown || !(named || wrapped) ||
      !moves_to_device(source_, target, body, ts_node_start_byte(ts_node_parent(body)))) {
    return element;
  }
  // Accelerate's and Lightning's loaders put their batches on the device
  // themselves (a move there is redundant, not a sign of the host).
  for (const auto& [name, module] : source_.imports()) {
    if (module.rfind("accelerate", 0) == 0 || module.find("lightning") != std::string::npos) {
      return element;
    }
  }
  Value batch;
  batch.place = Place::kHost;
  batch.origin = Origin::kBatch;
  // Nothing says it comes from a loader: taken as pinned, so that DC108
  // (memory known to be pageable) says nothing of it.
  batch.pinned = true;
  batch.made = iterable;
  return batch;
}

void FlowRun::exec_for(TSNode node, Frame& frame) {
  const TSNode left = field(node, fields().left);
  const TSNode right = field(node, fields().right);
  const TSNode body = field(node, fields().body);
  const Env before = frame.env;
  const bool pattern =
      is(left, "pattern_list") || is(left, "tuple_pattern") || is(left, "list_pattern");
  // enumerate(x) and zip(a, b) give tuples of what they iterate.
  const std::string q = is(right, "call") ? source_.dotted(field(right, fields().function)) : "";
  if (bind_module_tensors(node, frame)) {
  } else if (pattern && (q == "enumerate" || q == "zip")) {
    const std::vector<TSNode> args = source_.positional(right);
    std::vector<Value> parts;
    if (q == "enumerate") parts.push_back(Value{});
    for (TSNode arg : args) parts.push_back(element_of(eval(arg, frame), arg, frame));
    if (q == "enumerate" && !args.empty()) parts.resize(2);
    std::size_t i = 0;
    for_each_named_child(left, [&](TSNode part) {
      if (i < parts.size()) {
        const TSNode arg = args[q == "enumerate" ? 0 : i];
        bind(part, i == 0 && q == "enumerate" ? parts[i] : moved_batch(parts[i], part, arg, body),
             frame, node);
      }
      ++i;
    });
    frame.loops.emplace_back(left, parts.size() > 1 ? parts.back() : Value{});
  } else {
    const Value element =
        moved_batch(element_of(eval(right, frame), right, frame), left, right, body);
    bind(left, element, frame, node);
    frame.loops.emplace_back(left, element);
  }
  exec_block(body, frame);
  frame.loops.pop_back();
  exec_block(field(node, fields().alternative), frame);
  frame.env.merge(before);
}

}  // namespace devcheck::lint::detail
