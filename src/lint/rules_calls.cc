// Rules that judge one call by what it calls and how:
// DC105 torch.load, DC108 non_blocking, DC109 torch.cuda.amp,
// DC110 set_default_tensor_type, DC115 unguarded cuda, DC119 legacy types.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

#include "rules.h"

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

bool is_factory(std::string_view q) {
  static constexpr std::array<std::string_view, 16> kFactories = {
      "torch.tensor",   "torch.zeros",    "torch.ones",   "torch.empty",
      "torch.full",     "torch.arange",   "torch.rand",   "torch.randn",
      "torch.randint",  "torch.randperm", "torch.eye",    "torch.linspace",
      "torch.logspace", "torch.range",    "torch.normal", "torch.empty_strided"};
  for (std::string_view f : kFactories) {
    if (q == f) return true;
  }
  return false;
}

bool makes_tensor(const Source& source, TSNode value) {
  if (!is(value, "call")) return false;
  const std::string q = source.qualify(field(value, "function"));
  return is_factory(q) || q == "torch.from_numpy" || q == "torch.as_tensor" || q == "torch.stack" ||
         q == "torch.cat";
}

namespace {

bool is_cuda_string(const std::optional<std::string>& s) {
  return s && (*s == "cuda" || (s->rfind("cuda:", 0) == 0));
}

void check_load(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified != "torch.load" || source.has_splat(call.node)) return;
  if (!ts_node_is_null(source.keyword(call.node, "map_location")) ||
      source.positional(call.node).size() >= 2) {
    return;
  }
  sink.report(call.node, "DC105",
              "torch.load without map_location: tensors saved on a GPU fail to load where that "
              "device is missing; pass map_location=\"cpu\" (or the target device) and "
              "weights_only= explicitly (its default changed in torch 2.6)");
}

// Whether an enclosing for loop over a loader (in the same function) binds `name`.
bool bound_by_loop(const Source& source, TSNode node, std::string_view name) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) return false;
    if (!is(n, "for_statement")) continue;
    // Over a loader: `for x, y in loader`, `in train_loader`, `in DataLoader(...)`.
    const std::string_view over = source.text(field(n, "right"));
    if (over.find("loader") == std::string_view::npos &&
        over.find("Loader") == std::string_view::npos) {
      continue;
    }
    const TSNode left = field(n, "left");
    const uint32_t start = ts_node_start_byte(left);
    const std::string_view targets = source.text(left);
    for (std::size_t at = targets.find(name); at != std::string_view::npos;
         at = targets.find(name, at + 1)) {
      const TSNode word = ts_node_named_descendant_for_byte_range(
          left, start + static_cast<uint32_t>(at), start + static_cast<uint32_t>(at + name.size()));
      if (is(word, "identifier") && source.text(word) == name) return true;
    }
  }
  return false;
}

void check_non_blocking(const Source& source, const Call& call, Sink& sink) {
  if (call.method != "to" && call.method != "cuda") return;
  const TSNode nb = source.keyword(call.node, "non_blocking");
  if (ts_node_is_null(nb) || source.text(nb) != "True" || source.mentions("pin_memory")) return;
  const std::vector<TSNode> args = source.positional(call.node);
  if (!args.empty() && string_value(source, args[0]) == std::optional<std::string>("cpu")) return;
  // Host to device, as far as one can tell: the tensor is (part of) a batch
  // a for loop takes from a loader. A copy between devices needs no pinned
  // memory, and other loops are as likely to be over devices.
  TSNode object = call.object;
  while (is(object, "subscript") || is(object, "attribute")) {
    object = field(object, is(object, "subscript") ? "value" : "object");
  }
  if (!is(object, "identifier") || !bound_by_loop(source, call.node, source.text(object))) return;
  sink.report(call.node, "DC108",
              "non_blocking=True from pageable memory is a synchronous copy: nothing in this file "
              "pins memory; use DataLoader(pin_memory=True) or tensor.pin_memory()");
}

void check_amp(const Source& source, const Call& call, Sink& sink) {
  std::string_view name;
  if (call.qualified == "torch.cuda.amp.autocast") {
    name = "autocast";
  } else if (call.qualified == "torch.cuda.amp.GradScaler") {
    name = "GradScaler";
  } else {
    return;
  }
  std::string message = "torch.cuda.amp." + std::string(name) +
                        " is deprecated since torch 2.4; use torch.amp." + std::string(name) +
                        "(\"cuda\", ...)";
  // Safe to rewrite only when spelled out (`torch.cuda.amp.autocast`) and
  // every argument is a keyword: positions differ between the two APIs.
  const TSNode function = field(call.node, "function");
  const std::string written = source.dotted(function);
  const std::string tail = "cuda.amp." + std::string(name);
  std::optional<Fix> fix;
  if (written.size() > tail.size() &&
      written.compare(written.size() - tail.size(), tail.size(), tail) == 0 &&
      source.positional(call.node).empty() && !source.has_splat(call.node)) {
    const TSNode args = field(call.node, "arguments");
    Fix f;
    f.message = "use torch.amp." + std::string(name) + "(\"cuda\")";
    f.edits.push_back(
        {ts_node_start_byte(function), ts_node_end_byte(function),
         written.substr(0, written.size() - tail.size()) + "amp." + std::string(name)});
    const bool empty = ts_node_named_child_count(args) == 0;
    f.edits.push_back({ts_node_start_byte(args) + 1, ts_node_start_byte(args) + 1,
                       empty ? "\"cuda\"" : "\"cuda\", "});
    fix = std::move(f);
  }
  sink.report(call.node, "DC109", std::move(message), std::move(fix));
}

struct LegacyType {
  std::string_view name;
  std::string_view dtype;
};
constexpr std::array<LegacyType, 10> kLegacyTypes = {{{"FloatTensor", "torch.float32"},
                                                      {"DoubleTensor", "torch.float64"},
                                                      {"HalfTensor", "torch.float16"},
                                                      {"BFloat16Tensor", "torch.bfloat16"},
                                                      {"ByteTensor", "torch.uint8"},
                                                      {"CharTensor", "torch.int8"},
                                                      {"ShortTensor", "torch.int16"},
                                                      {"IntTensor", "torch.int32"},
                                                      {"LongTensor", "torch.int64"},
                                                      {"BoolTensor", "torch.bool"}}};

// `torch.FloatTensor` / `torch.cuda.FloatTensor` -> {dtype, is_cuda}.
std::optional<std::pair<std::string_view, bool>> legacy_type(std::string_view q) {
  bool cuda = false;
  std::string_view rest;
  if (q.rfind("torch.cuda.", 0) == 0) {
    cuda = true;
    rest = q.substr(11);
  } else if (q.rfind("torch.", 0) == 0) {
    rest = q.substr(6);
  } else {
    return std::nullopt;
  }
  for (const LegacyType& t : kLegacyTypes) {
    if (rest == t.name) return std::make_pair(t.dtype, cuda);
  }
  return std::nullopt;
}

void check_default_type(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified != "torch.set_default_tensor_type") return;
  const std::vector<TSNode> args = source.positional(call.node);
  std::optional<Fix> fix;
  if (args.size() == 1 && ts_node_named_child_count(field(call.node, "arguments")) == 1) {
    const std::optional<std::string> s = string_value(source, args[0]);
    const std::string q = s ? *s : source.qualify(args[0]);
    const std::string torch = source.dotted(field(field(call.node, "function"), "object"));
    std::string replacement;
    if (q == "torch.cuda.FloatTensor") {
      replacement = torch + ".set_default_device(\"cuda\")";
    } else if (q == "torch.FloatTensor") {
      replacement = torch + ".set_default_dtype(" + torch + ".float32)";
    } else if (q == "torch.DoubleTensor") {
      replacement = torch + ".set_default_dtype(" + torch + ".float64)";
    }
    if (!replacement.empty() && !torch.empty()) {
      fix = Fix{"use " + replacement,
                {{ts_node_start_byte(call.node), ts_node_end_byte(call.node), replacement}}};
    }
  }
  sink.report(call.node, "DC110",
              "torch.set_default_tensor_type is deprecated; use torch.set_default_device(...) for "
              "the device and torch.set_default_dtype(...) for the dtype",
              std::move(fix));
}

bool is_int_literal(const Source& source, TSNode node) {
  if (!is(node, "integer")) return false;
  for (char c : source.text(node)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

void check_legacy_constructor(const Source& source, const Call& call, Sink& sink) {
  const auto type = legacy_type(call.qualified);
  if (!type) return;
  const auto [dtype, cuda] = *type;
  const std::string suffix =
      std::string(", dtype=") + std::string(dtype) + (cuda ? ", device=\"cuda\")" : ")");
  const std::string message =
      source.dotted(field(call.node, "function")) +
      "(...) is a legacy constructor; use torch.tensor(data, dtype=" + std::string(dtype) +
      (cuda ? ", device=\"cuda\")" : ")") + " or torch.empty(size, ...)";
  // Rewritten only where the meaning is certain: all-integer sizes, or one
  // list literal of data. torch.FloatTensor(x) of a name is ambiguous.
  const TSNode args = field(call.node, "arguments");
  const std::vector<TSNode> pos = source.positional(call.node);
  const uint32_t count = ts_node_named_child_count(args);
  std::optional<Fix> fix;
  if (count == pos.size() && !pos.empty() && source.imports().count("torch") != 0 &&
      source.imports().at("torch") == "torch") {
    bool sizes = true;
    for (TSNode p : pos) sizes = sizes && is_int_literal(source, p);
    std::string replacement;
    if (sizes) {
      std::string list;
      for (TSNode p : pos) list += (list.empty() ? "" : ", ") + std::string(source.text(p));
      replacement = "torch.empty(" + list + suffix;
    } else if (pos.size() == 1 && is(pos[0], "list")) {
      replacement = "torch.tensor(" + std::string(source.text(pos[0])) + suffix;
    }
    if (!replacement.empty()) {
      fix = Fix{"use " + replacement,
                {{ts_node_start_byte(call.node), ts_node_end_byte(call.node), replacement}}};
    }
  }
  sink.report(call.node, "DC119", message, std::move(fix));
}

void check_legacy_type_string(const Source& source, const Call& call, Sink& sink) {
  if (call.method != "type") return;
  const std::vector<TSNode> args = source.positional(call.node);
  if (args.size() != 1) return;
  const std::optional<std::string> s = string_value(source, args[0]);
  const auto type = legacy_type(s ? *s : source.qualify(args[0]));
  if (!type) return;
  sink.report(call.node, "DC119",
              ".type(" + std::string(source.text(args[0])) +
                  ") names a legacy tensor type; use .to(dtype=" + std::string(type->first) +
                  (type->second ? ", device=\"cuda\")" : ")"));
}

// Whether code is run only where CUDA is, by what is around it: a decorator
// of an enclosing function or class that names CUDA or a GPU
// (`@RunIf(min_cuda_gpus=1)`, `@unittest.skipIf(not TEST_CUDA, ...)`), or a
// call around it whose `marks=` does (`pytest.param(..., marks=...)`). The
// test that decides may live elsewhere (a conftest.py).
bool gated_on_cuda(const Source& source, const Call& call) {
  for (int s = call.scope; s > 0; s = source.scopes()[s].parent) {
    const TSNode definition = ts_node_parent(source.scopes()[s].node);
    if (!is(definition, "decorated_definition")) continue;
    const uint32_t count = ts_node_named_child_count(definition);
    for (uint32_t i = 0; i < count; ++i) {
      const TSNode decorator = ts_node_named_child(definition, i);
      if (is(decorator, "decorator") && names_cuda_or_gpu(source.text(decorator))) return true;
    }
  }
  for (TSNode n = ts_node_parent(call.node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (!is(n, "call")) continue;
    const TSNode marks = source.keyword(n, "marks");
    if (!ts_node_is_null(marks) && names_cuda_or_gpu(source.text(marks))) return true;
  }
  return false;
}

void check_device_guard(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified != "torch.device" || source.mentions("is_available") ||
      source.mentions("device_count")) {
    return;
  }
  const std::vector<TSNode> args = source.positional(call.node);
  if (args.empty() || !is_cuda_string(string_value(source, args[0]))) return;
  // A comparison (`t.device == torch.device("cuda", i)`) chooses nothing, and
  // `torch.device("cuda", torch.cuda.current_device())` runs where CUDA is.
  if (is(ts_node_parent(call.node), "comparison_operator") ||
      (args.size() > 1 && source.text(args[1]).find("cuda") != std::string_view::npos) ||
      gated_on_cuda(source, call)) {
    return;
  }
  sink.report(call.node, "DC115",
              "CUDA chosen without torch.cuda.is_available() anywhere in this file: it fails on "
              "machines without a GPU; use torch.device(\"cuda\" if torch.cuda.is_available() "
              "else \"cpu\")");
}

}  // namespace

bool names_any(std::string_view text, std::initializer_list<std::string_view> words) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::any_of(words.begin(), words.end(),
                     [&](std::string_view word) { return lower.find(word) != std::string::npos; });
}

void check_calls(const Source& source, Sink& sink) {
  for (const Call& call : source.calls()) {
    check_load(source, call, sink);
    check_non_blocking(source, call, sink);
    check_amp(source, call, sink);
    check_default_type(source, call, sink);
    check_legacy_constructor(source, call, sink);
    check_legacy_type_string(source, call, sink);
    check_device_guard(source, call, sink);
  }
}

}  // namespace devcheck::lint::detail
