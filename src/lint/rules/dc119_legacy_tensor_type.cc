// DC119 legacy-tensor-type: torch.FloatTensor(...), torch.cuda.LongTensor(...)
// and .type(torch.cuda.HalfTensor) / .type("torch.cuda.FloatTensor"); and
// torch.Tensor(..., device=d), which refuses any device but the CPU.
#include <array>

#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

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

// `torch.Tensor([...], device=x.device)`: the legacy constructors (torch.Tensor
// among them) make CPU tensors only and refuse any other device ("legacy
// constructor expects device type: cpu"), so the line fails wherever the
// device is a GPU. Not `device="cpu"`, nor in code that expects the error
// (`assertRaises(RuntimeError, lambda: ...)`, `with pytest.raises(...)`).
// Whether `node` sits in code that expects an error: an argument of
// `assertRaises(...)` (its lambda) or the body of `with pytest.raises(...)`.
bool expects_an_error(const Source& source, TSNode node) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "function_definition")) return false;
    TSNode test{};
    if (is(n, "call")) test = field(n, "function");
    if (is(n, "with_statement")) test = ts_node_named_child(n, 0);
    if (!ts_node_is_null(test) && names_any(source.text(test), {"raises"})) return true;
  }
  return false;
}

void check_legacy_with_device(const Source& source, const Call& call, Sink& sink) {
  if (call.qualified != "torch.Tensor" || expects_an_error(source, call.node)) return;
  const TSNode device = source.keyword(call.node, "device");
  if (ts_node_is_null(device) || is(device, "none") ||
      is_cpu_string(string_value(source, device))) {
    return;
  }
  const std::string message =
      source.dotted(field(call.node, "function")) +
      "(..., device=" + std::string(source.text(device)) +
      ") is a legacy constructor, which makes CPU tensors only and refuses a CUDA device; use "
      "torch.tensor(data, device=" +
      std::string(source.text(device)) + ") or torch.empty(size, device=...)";
  sink.report(call.node, "DC119", message);
}

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
    if (call.qualified == "torch.Tensor") {
      check_legacy_with_device(c.source, call, c.sink);
      continue;
    }
    check_legacy_constructor(c.source, call, c.sink);
    check_legacy_type_string(c.source, call, c.sink);
  }
}

}  // namespace

extern const Rule kRuleDC119;
const Rule kRuleDC119 = {{"DC119", "legacy-tensor-type",
                          "Legacy torch.cuda.FloatTensor-style constructors and types.", true},
                         "import torch\n"
                         "x = torch.cuda.FloatTensor(2, 3)\n",
                         "import torch\n"
                         "x = torch.empty(2, 3, dtype=torch.float32, device=\"cuda\")\n",
                         check};

}  // namespace devcheck::lint::detail
