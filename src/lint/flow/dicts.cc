// The device flow's dicts (flow.h, Value::keys): what a dict literal keeps
// under each string key, read back by `d["k"]`, replaced by `d["k"] = v`,
// and forgotten where the dict changes in a way the flow does not follow.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.h"
#include "run.h"

namespace devcheck::lint::detail {

int FlowRun::record_dict(std::vector<DictEntry> entries) {
  dicts_.push_back(std::move(entries));
  return static_cast<int>(dicts_.size()) - 1;
}

std::optional<Value> FlowRun::dict_entry(const Value& dict, TSNode key) const {
  if (dict.keys < 0 || dict.kind != Kind::kList) return std::nullopt;
  const std::optional<std::string> name = string_value(source_, key);
  if (!name) return std::nullopt;
  for (const DictEntry& entry : dicts_[dict.keys]) {
    if (entry.key == *name) return entry.value;
  }
  // Stored in a way the flow did not see (or a KeyError): unknown.
  return Value{};
}

int FlowRun::dict_stored(const Value& dict, TSNode key, const Value& v) {
  if (dict.keys < 0) return -1;
  const std::optional<std::string> name = string_value(source_, key);
  if (!name) return -1;
  std::vector<DictEntry> entries = dicts_[dict.keys];
  bool replaced = false;
  for (DictEntry& entry : entries) {
    if (entry.key == *name) {
      entry.value = v;
      replaced = true;
    }
  }
  if (!replaced) entries.push_back({*name, v});
  return record_dict(std::move(entries));
}

namespace {

// The methods of a dict that leave it as it is.
bool reads_dict(std::string_view method) {
  return method == "get" || method == "keys" || method == "values" || method == "items" ||
         method == "copy" || method == "__getitem__" || method == "__contains__";
}

}  // namespace

void FlowRun::forget_changed_keys(TSNode call, Frame& frame) {
  const auto forget = [&](TSNode node) {
    const bool named =
        is(node, "identifier") ||
        (is(node, "attribute") && source_.text(field(node, fields().object)) == "self");
    if (!named) return;
    const std::string_view name = source_.text(node);
    const Value* held = frame.env.find(name);
    if (held == nullptr || held->keys < 0) return;
    Value v = *held;
    v.keys = -1;
    frame.env.set(name, v);
  };
  const TSNode function = field(call, fields().function);
  if (is(function, "attribute") && !reads_dict(source_.text(field(function, fields().attribute)))) {
    forget(field(function, fields().object));
  }
  // A function given the dict may change it (`to_device(batch)`).
  for (const TSNode arg : source_.positional(call)) forget(arg);
}

}  // namespace devcheck::lint::detail
