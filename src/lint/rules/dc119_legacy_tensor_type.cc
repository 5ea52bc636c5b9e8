// DC119 legacy-tensor-type: torch.FloatTensor(...), torch.cuda.LongTensor(...)
// and .type(torch.cuda.HalfTensor) / .type("torch.cuda.FloatTensor").
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

void check(const RuleContext& c) {
  for (const Call& call : c.source.calls()) {
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
