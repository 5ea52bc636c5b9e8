// One file: parse, run every rule, drop what is suppressed or not selected.
#include <algorithm>
#include <map>
#include <set>

#include "checker.h"
#include "rules.h"
#include "syntax.h"

namespace devcheck::lint {

const std::vector<RuleInfo>& rules() {
  static const std::vector<RuleInfo> kRules = {
      {"DC100", "syntax-error", "The file does not parse; the rest of it is still checked.", false},
      {"DC101", "factory-without-device",
       "A tensor factory without device= in a function that works on a device.", false},
      {"DC102", "discarded-move",
       "t.cuda() / t.to(dev) as a statement: tensors do not move in place.", true},
      {"DC103", "numpy-tensor-unmoved",
       "torch.from_numpy / torch.as_tensor of an array used unmoved with device tensors.", false},
      {"DC104", "wrapped-before-move",
       "DistributedDataParallel(model) built before the model is moved to its device.", false},
      {"DC105", "load-without-map-location", "torch.load without map_location.", false},
      {"DC106", "per-element-move",
       "torch.stack/cat of one .to(device) per element, where one move of the stack would do.",
       false},
      {"DC107", "cuda-in-worker",
       "CUDA in a collate_fn, worker_init_fn or Dataset.__getitem__ run by forked workers.", false},
      {"DC108", "non-blocking-unpinned", "non_blocking=True with no pinned memory in sight.",
       false},
      {"DC109", "deprecated-cuda-amp", "torch.cuda.amp.autocast / GradScaler are deprecated.",
       true},
      {"DC110", "set-default-tensor-type", "torch.set_default_tensor_type is deprecated.", true},
      {"DC111", "plain-tensor-on-module",
       "A plain tensor assigned to self in nn.Module.__init__ does not follow model.to().", false},
      {"DC112", "hard-coded-cuda", "Hard-coded CUDA in a file that defines a device variable.",
       false},
      {"DC113", "numpy-on-device", ".numpy() on a tensor that is on a device.", false},
      {"DC114", "item-every-step", ".item() on every step of a training loop.", false},
      {"DC115", "unguarded-cuda", "CUDA chosen with no torch.cuda.is_available() in the file.",
       false},
      {"DC116", "layer-in-forward", "A layer with parameters constructed inside forward.", false},
      {"DC117", "saved-wrapper-state", "torch.save of a DataParallel/DDP wrapper's state_dict.",
       false},
      {"DC118", "unsynchronised-host-copy",
       "A non_blocking=True copy to the host read before any synchronisation.", false},
      {"DC119", "legacy-tensor-type", "Legacy torch.cuda.FloatTensor-style constructors and types.",
       true},
  };
  return kRules;
}

namespace detail {
namespace {

bool matches(const std::string& rule, const std::vector<std::string>& patterns) {
  return std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) {
    return p == "ALL" || rule.compare(0, p.size(), p) == 0;
  });
}

TSNode first_error(TSNode node) {
  if (ts_node_is_missing(node) || is(node, "ERROR")) return node;
  const uint32_t count = ts_node_child_count(node);
  for (uint32_t i = 0; i < count; ++i) {
    const TSNode child = ts_node_child(node, i);
    if (ts_node_has_error(child)) return first_error(child);
  }
  return TSNode{};
}

// Line -> rules suppressed there (empty set: all), from `# devcheck: ignore[...]`.
std::map<int, std::set<std::string>> suppressions(const Source& source) {
  std::map<int, std::set<std::string>> out;
  static constexpr std::string_view kMarker = "devcheck: ignore";
  for (TSNode comment : source.comments()) {
    const std::string_view text = source.text(comment);
    const auto at = text.find(kMarker);
    if (at == std::string_view::npos) continue;
    const int line = static_cast<int>(ts_node_start_point(comment).row) + 1;
    std::set<std::string>& rules = out[line];
    std::string_view rest = text.substr(at + kMarker.size());
    if (rest.empty() || rest[0] != '[') {
      rules.clear();
      rules.insert("*");
      continue;
    }
    const auto close = rest.find(']');
    rest = rest.substr(1, close == std::string_view::npos ? std::string_view::npos : close - 1);
    std::string id;
    for (char c : std::string(rest) + ",") {
      if (c == ',' || c == ' ') {
        if (!id.empty()) rules.insert(id);
        id.clear();
      } else {
        id += c;
      }
    }
  }
  return out;
}

bool suppressed(const std::map<int, std::set<std::string>>& table, const Finding& f) {
  for (int line : {f.line, f.end_line}) {
    const auto found = table.find(line);
    if (found != table.end() &&
        (found->second.count("*") != 0 || found->second.count(f.rule) != 0)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool selected(const std::string& rule, const std::vector<std::string>& select,
              const std::vector<std::string>& ignore) {
  if (!select.empty() && !matches(rule, select)) return false;
  return !matches(rule, ignore);
}

std::vector<Finding> check_source(std::string_view text, const std::string& path,
                                  const std::vector<std::string>& select,
                                  const std::vector<std::string>& ignore) {
  thread_local Parser parser;
  const auto tree = parser.parse(text);
  if (!tree) return {};
  const Source source(text, tree.get());
  Sink sink(path);
  const TSNode error = first_error(source.root());
  if (!ts_node_is_null(error)) {
    sink.report(error, "DC100",
                std::string(ts_node_is_missing(error)
                                ? "syntax error: missing " + std::string(ts_node_type(error))
                                : "syntax error") +
                    "; the code around it is not checked");
  }
  check_calls(source, sink);
  check_scopes(source, sink);
  check_places(source, sink);
  check_numpy_arrays(source, sink);
  const auto table = suppressions(source);
  std::vector<Finding> out;
  for (Finding& f : sink.findings()) {
    if (selected(f.rule, select, ignore) && !suppressed(table, f)) out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.line, a.column, a.rule) < std::tie(b.line, b.column, b.rule);
  });
  return out;
}

}  // namespace detail

std::vector<Finding> lint_source(std::string_view source, const std::string& path,
                                 const LintOptions& options) {
  return detail::check_source(source, path, options.select, options.ignore);
}

}  // namespace devcheck::lint
