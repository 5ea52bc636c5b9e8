// DC107 cuda-in-worker: CUDA inside a collate_fn or worker_init_fn given to a
// DataLoader that forks workers, in a Dataset's __getitem__, or a tensor a
// Dataset holds on a device and __getitem__ returns: "Cannot re-initialize
// CUDA in forked subprocess".
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

bool is_cuda_text(std::string_view text) { return text.find("cuda") != std::string_view::npos; }

bool cuda_string(const Source& source, TSNode node) {
  const auto s = string_value(source, node);
  return s && (*s == "cuda" || s->rfind("cuda:", 0) == 0);
}

// A module-level name whose value mentions "cuda" (`DEVICE = torch.device("cuda" if ...)`).
bool cuda_name(const Source& source, TSNode node) {
  if (!is(node, "identifier")) return false;
  const TSNode value = source.value_of(std::string(source.text(node)), 0);
  return !ts_node_is_null(value) && is_cuda_text(source.text(value));
}

// Calls inside [start, end) that put something on a CUDA device.
void report_cuda_in(const Source& source, uint32_t start, uint32_t end, const std::string& where,
                    Sink& sink) {
  for (const Call& call : source.calls()) {
    if (ts_node_start_byte(call.node) < start || ts_node_end_byte(call.node) > end) continue;
    bool cuda = call.method == "cuda" && call.qualified.empty();
    if (call.method == "to") {
      const std::vector<TSNode> args = source.positional(call.node);
      const TSNode target = args.empty() ? source.keyword(call.node, "device") : args[0];
      cuda = !ts_node_is_null(target) &&
             (cuda_string(source, target) || cuda_name(source, target) ||
              (is(target, "call") && source.qualify(field(target, "function")) == "torch.device" &&
               is_cuda_text(source.text(target))));
    }
    const TSNode dev = source.keyword(call.node, "device");
    if (!cuda && !ts_node_is_null(dev) && (cuda_string(source, dev) || cuda_name(source, dev))) {
      cuda = true;
    }
    if (!cuda) continue;
    sink.report(call.node, "DC107",
                "CUDA used in " + where +
                    ", which runs in forked DataLoader workers: CUDA cannot be re-initialised in "
                    "a forked subprocess; move batches in the training loop (fine only with "
                    "num_workers=0 or a spawn multiprocessing_context)");
  }
}

bool forks_workers(const Source& source, TSNode loader) {
  const TSNode workers = source.keyword(loader, "num_workers");
  if (ts_node_is_null(workers) || source.text(workers) == "0") return false;
  const TSNode context = source.keyword(loader, "multiprocessing_context");
  if (!ts_node_is_null(context)) {
    const std::string_view text = source.text(context);
    if (text.find("spawn") != std::string_view::npos ||
        text.find("forkserver") != std::string_view::npos) {
      return false;
    }
  }
  return true;
}

const Scope* function_named(const Source& source, std::string_view name) {
  for (const Scope& s : source.scopes()) {
    if (s.kind == ScopeKind::kFunction && s.owner_class < 0 && s.name == name) return &s;
  }
  return nullptr;
}

// Whether the file reads with worker processes: a DataLoader that forks
// them, or a torchdata reading service with num_workers (not 0).
bool reads_in_workers(const Source& source) {
  for (const Call& call : source.calls()) {
    const std::string_view q = call.qualified;
    const std::string_view suffix = "MultiProcessingReadingService";
    if (q.size() >= suffix.size() && q.substr(q.size() - suffix.size()) == suffix) {
      const TSNode workers = source.keyword(call.node, "num_workers");
      if (!ts_node_is_null(workers) && source.text(workers) != "0") return true;
    }
    if ((q == "torch.utils.data.DataLoader" || q == "torch.utils.data.dataloader.DataLoader") &&
        forks_workers(source, call.node)) {
      return true;
    }
  }
  return false;
}

// A function of the file handed to a data pipe's `.map(fn)` or
// `.collate(fn)` (or `partial(fn, ...)`) in a file that reads with worker
// processes: the pipe runs it in them (meta-pytorch/data#966).
void check_datapipes(const Source& source, Sink& sink,
                     std::set<std::pair<uint32_t, uint32_t>>& done) {
  bool workers = false;
  bool asked = false;
  for (const Call& call : source.calls()) {
    if ((call.method != "map" && call.method != "collate") || !call.qualified.empty()) continue;
    const std::vector<TSNode> args = source.positional(call.node);
    if (args.empty()) continue;
    TSNode fn = args[0];
    if (is(fn, "call") && source.qualify(field(fn, "function")) == "functools.partial") {
      const std::vector<TSNode> inner = source.positional(fn);
      fn = inner.empty() ? TSNode{} : inner[0];
    }
    if (!is(fn, "identifier")) continue;
    const Scope* f = function_named(source, source.text(fn));
    if (f == nullptr) continue;
    if (!asked) {
      workers = reads_in_workers(source);
      asked = true;
    }
    if (!workers) return;
    if (!done.emplace(ts_node_start_byte(f->node), ts_node_end_byte(f->node)).second) continue;
    report_cuda_in(source, ts_node_start_byte(f->node), ts_node_end_byte(f->node),
                   "'" + std::string(source.text(fn)) + "' (given to a data pipe's ." +
                       std::string(call.method) + "())",
                   sink);
  }
}

void check_workers(const Source& source, Sink& sink) {
  std::set<std::pair<uint32_t, uint32_t>> done;
  for (const Call& call : source.calls()) {
    if (call.qualified != "torch.utils.data.DataLoader" &&
        call.qualified != "torch.utils.data.dataloader.DataLoader") {
      continue;
    }
    if (!forks_workers(source, call.node)) continue;
    for (const char* hook : {"collate_fn", "worker_init_fn"}) {
      const TSNode value = source.keyword(call.node, hook);
      if (ts_node_is_null(value)) continue;
      TSNode body{};
      if (is(value, "lambda")) {
        body = value;
      } else if (is(value, "identifier")) {
        if (const Scope* f = function_named(source, source.text(value))) body = f->node;
      }
      if (ts_node_is_null(body)) continue;
      if (!done.emplace(ts_node_start_byte(body), ts_node_end_byte(body)).second) continue;
      report_cuda_in(source, ts_node_start_byte(body), ts_node_end_byte(body),
                     std::string("the ") + hook + " '" + std::string(source.text(value)) + "'",
                     sink);
    }
  }
  check_datapipes(source, sink, done);
  for (const auto& [name, info] : source.classes()) {
    if (!info.is_dataset) continue;
    for (const Scope& s : source.scopes()) {
      if (s.owner_class != info.scope || s.name != "__getitem__") continue;
      report_cuda_in(source, ts_node_start_byte(s.node), ts_node_end_byte(s.node),
                     name + ".__getitem__", sink);
    }
  }
}

// The classes of the file `class_scope` derives from, itself first
// (`RandomReplicated(RandomDataset)`: both).
std::vector<int> class_chain(const Source& source, int class_scope) {
  std::vector<int> chain{class_scope};
  for (std::size_t i = 0; i < chain.size() && chain.size() < 8; ++i) {
    const TSNode bases = field(source.scopes()[chain[i]].node, "superclasses");
    if (ts_node_is_null(bases)) continue;
    for (uint32_t b = 0, n = ts_node_named_child_count(bases); b < n; ++b) {
      const auto base =
          source.classes().find(std::string(source.text(ts_node_named_child(bases, b))));
      if (base != source.classes().end() && base->second.scope >= 0 &&
          std::find(chain.begin(), chain.end(), base->second.scope) == chain.end()) {
        chain.push_back(base->second.scope);
      }
    }
  }
  return chain;
}

// The position of parameter `name` of the __init__ that constructs objects
// of `class_scope` (its own, else the nearest of the file's bases), counting
// `self`; 0 where none has it, -1 where that __init__ does not default it to
// the host (None, "cpu").
int host_parameter(const Source& source, int class_scope, std::string_view name) {
  for (const int cls : class_chain(source, class_scope)) {
    for (const Scope& init : source.scopes()) {
      if (init.name != "__init__" || init.owner_class != cls) continue;
      const TSNode parameters = field(init.node, "parameters");
      int position = 0;  // comments and the `/` separator are no parameters
      for (uint32_t i = 0, n = ts_node_named_child_count(parameters); i < n; ++i) {
        const TSNode p = ts_node_named_child(parameters, i);
        if (is(p, "comment") || is(p, "positional_separator")) continue;
        const int at = position++;
        const bool defaulted = is(p, "default_parameter") || is(p, "typed_default_parameter");
        const TSNode id = defaulted                  ? field(p, "name")
                          : is(p, "typed_parameter") ? ts_node_named_child(p, 0)
                                                     : p;
        if (source.text(id) != name) continue;
        const TSNode value = defaulted ? field(p, "value") : TSNode{};
        return !ts_node_is_null(value) &&
                       (is(value, "none") || is_cpu_string(string_value(source, value)))
                   ? at
                   : -1;
      }
      return 0;
    }
  }
  return 0;
}

// Whether `device`, the device= of a tensor a Dataset makes, is `self.x`
// that an __init__ of its class (or of a class of the file it derives from)
// keeps from a parameter defaulting to the host (`device=None`, `"cpu"`),
// and no construction in the file of the class, its bases or its subclasses
// passes that parameter: the dataset is on the host unless a caller
// elsewhere asks otherwise (a choice the file does not make, as a caller
// passing `device=` and workers would).
bool host_unless_asked(const Source& source, int class_scope, TSNode device) {
  if (!is(device, "attribute") || source.text(field(device, "object")) != "self") return false;
  const std::string name(source.text(device));
  std::vector<int> family = class_chain(source, class_scope);
  for (const auto& [cls, info] : source.classes()) {
    if (info.scope < 0) continue;
    const std::vector<int> chain = class_chain(source, info.scope);
    if (std::find(chain.begin(), chain.end(), class_scope) != chain.end() &&
        std::find(family.begin(), family.end(), info.scope) == family.end()) {
      family.push_back(info.scope);
    }
  }
  std::string parameter;
  for (const Scope& init : source.scopes()) {
    if (init.name != "__init__" ||
        std::find(family.begin(), family.end(), init.owner_class) == family.end()) {
      continue;
    }
    const auto kept = init.assigns.find(name);
    if (kept == init.assigns.end()) continue;
    for (const TSNode value : kept->second) {
      if (!is(value, "identifier") || (!parameter.empty() && source.text(value) != parameter)) {
        return false;
      }
      parameter = std::string(source.text(value));
    }
  }
  if (parameter.empty()) return false;
  for (const int cls : family) {
    const int position = host_parameter(source, cls, parameter);
    if (position < 0) return false;
    for (const Call& call : source.calls()) {
      if (source.text(field(call.node, "function")) != source.scopes()[cls].name) continue;
      const TSNode arguments = field(call.node, "arguments");
      for (uint32_t a = 0, k = ts_node_named_child_count(arguments); a < k; ++a) {
        const TSNode arg = ts_node_named_child(arguments, a);
        if (is(arg, "list_splat") || is(arg, "dictionary_splat") ||
            (is(arg, "keyword_argument") && source.text(field(arg, "name")) == parameter)) {
          return false;
        }
      }
      if (position > 0 &&
          source.positional(call.node).size() >= static_cast<std::size_t>(position)) {
        return false;
      }
    }
  }
  return true;
}

// A Dataset's attribute made on a device (`self.data = torch.randn(...,
// device="cuda")`) and read by its __getitem__: the workers get CUDA tensors.
void check_device_attributes(const RuleContext& c) {
  for (const AttributeSet& set : c.flow.attributes()) {
    if (set.v.place != Place::kDevice) continue;
    const Scope& cls = c.source.scopes()[set.class_scope];
    const auto info = c.source.classes().find(cls.name);
    if (info == c.source.classes().end() || !info->second.is_dataset) continue;
    if (is(set.value, "call") &&
        host_unless_asked(c.source, set.class_scope, c.source.keyword(set.value, "device"))) {
      continue;
    }
    for (const Scope& s : c.source.scopes()) {
      if (s.owner_class != set.class_scope || s.name != "__getitem__") continue;
      const std::string_view body = c.source.text(s.node);
      const std::size_t at = body.find(set.name);
      const std::size_t end = at + set.name.size();
      if (at == std::string_view::npos ||
          (end < body.size() &&
           (std::isalnum(static_cast<unsigned char>(body[end])) != 0 || body[end] == '_'))) {
        continue;
      }
      c.sink.report(set.value, "DC107",
                    std::string(set.name) + " is a tensor on a device that " + cls.name +
                        ".__getitem__ reads, which runs in forked DataLoader workers: CUDA "
                        "cannot be re-initialised in a forked subprocess; keep the dataset's "
                        "tensors on the CPU and move batches in the training loop");
    }
  }
}

// A DataLoader that forks workers over a dataset the flow knows holds tensors
// on a device (a TensorDataset of CUDA tensors).
void check_device_datasets(const RuleContext& c) {
  for (const LoaderMade& loader : c.flow.loaders()) {
    if (loader.dataset.kind != Kind::kDataset || loader.dataset.place != Place::kDevice ||
        !forks_workers(c.source, loader.call)) {
      continue;
    }
    c.sink.report(loader.call, "DC107",
                  "this DataLoader forks workers over a dataset of tensors on a device (" +
                      line_of(loader.dataset.made) +
                      "): CUDA cannot be re-initialised in a forked subprocess; keep the "
                      "dataset on the CPU and move batches in the training loop");
  }
}

void check(const RuleContext& c) {
  check_workers(c.source, c.sink);
  check_device_attributes(c);
  check_device_datasets(c);
}

}  // namespace

extern const Rule kRuleDC107;
const Rule kRuleDC107 = {
    {"DC107", "cuda-in-worker",
     "CUDA in a collate_fn, worker_init_fn or Dataset.__getitem__ run by forked workers.", false},
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "def collate(batch):\n"
    "    return torch.stack(batch).cuda()\n"
    "loader = DataLoader(data, num_workers=4, collate_fn=collate)\n",
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "def collate(batch):\n"
    "    return torch.stack(batch)\n"
    "loader = DataLoader(data, num_workers=4, collate_fn=collate, pin_memory=True)\n"
    "for x in loader:\n"
    "    x = x.cuda(non_blocking=True)\n",
    check};

}  // namespace devcheck::lint::detail
