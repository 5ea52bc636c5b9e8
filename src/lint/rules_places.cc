// Rules about where code runs: DC107 CUDA in DataLoader workers,
// DC112 hard-coded CUDA beside a device variable, DC114 .item() every step,
// DC118 reading a non-blocking copy to the host before synchronising.
#include <algorithm>
#include <cctype>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "rules.h"

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
  for (const auto& [name, info] : source.classes()) {
    if (!info.is_dataset) continue;
    for (const Scope& s : source.scopes()) {
      if (s.owner_class != info.scope || s.name != "__getitem__") continue;
      report_cuda_in(source, ts_node_start_byte(s.node), ts_node_end_byte(s.node),
                     name + ".__getitem__", sink);
    }
  }
}

bool is_device_name(std::string_view name) {
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "dev" || lower.find("device") != std::string::npos;
}

// Whether `node` lies in a branch of an `if`/`elif` or a conditional
// expression whose test names CUDA, a GPU or one of the device variables
// (`if device.type == "cuda": model.cuda()`): it follows the choice.
bool under_device_test(const Source& source, TSNode node, const std::vector<std::string>& names) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    TSNode test{};
    if (is(n, "if_statement") || is(n, "elif_clause")) {
      test = field(n, "condition");
    } else if (is(n, "conditional_expression")) {
      test = ts_node_named_child(n, 1);  // body `if` test `else` other
    } else {
      continue;
    }
    if (ts_node_is_null(test) || (ts_node_start_byte(node) >= ts_node_start_byte(test) &&
                                  ts_node_end_byte(node) <= ts_node_end_byte(test))) {
      continue;  // in the test itself, not governed by it
    }
    const std::string_view text = source.text(test);
    if (names_cuda_or_gpu(text) ||
        std::any_of(names.begin(), names.end(), [&](const std::string& name) {
          return text.find(name) != std::string_view::npos;
        })) {
      return true;
    }
  }
  return false;
}

void check_hard_coded(const Source& source, Sink& sink) {
  // The device variables' definitions (which may say "cuda"), and the scopes
  // they serve: a module-level one serves the file, a function's its body.
  struct Definition {
    int scope;
    uint32_t start, end;
  };
  std::vector<Definition> definitions;
  std::vector<std::string> names;
  for (int s = 0; s < static_cast<int>(source.scopes().size()); ++s) {
    const Scope& scope = source.scopes()[s];
    if (scope.kind == ScopeKind::kClass) continue;
    for (const auto& [name, values] : scope.assigns) {
      if (!is_device_name(name) || name.rfind("self.", 0) == 0) continue;
      for (TSNode value : values) {
        // `device = "cuda"` chooses nothing: a line saying "cuda" beside it
        // ignores no choice (the code around is CUDA-only anyway).
        if (cuda_string(source, value)) continue;
        const bool device =
            (is(value, "call") && source.qualify(field(value, "function")) == "torch.device") ||
            is_cuda_text(source.text(value));
        if (device) {
          definitions.push_back({s, ts_node_start_byte(value), ts_node_end_byte(value)});
          names.push_back(name);
        }
      }
    }
  }
  if (definitions.empty()) return;
  for (const Call& call : source.calls()) {
    const int function = source.function_of(call.scope);
    bool served = false;
    bool inside = false;
    for (const Definition& d : definitions) {
      served = served || d.scope == 0 || d.scope == function;
      inside = inside ||
               (ts_node_start_byte(call.node) >= d.start && ts_node_end_byte(call.node) <= d.end);
    }
    if (!served || inside) continue;
    // `.cuda(rank)` picks a device on purpose; `.cuda()` takes CUDA's default.
    bool hard = call.method == "cuda" && call.qualified.empty() &&
                ts_node_named_child_count(field(call.node, "arguments")) == 0;
    if (call.method == "to") {
      const std::vector<TSNode> args = source.positional(call.node);
      hard = !args.empty() && cuda_string(source, args[0]);
    }
    const TSNode dev = source.keyword(call.node, "device");
    hard = hard || (!ts_node_is_null(dev) && cuda_string(source, dev));
    if (!hard || under_device_test(source, call.node, names)) continue;
    sink.report(call.node, "DC112",
                "hard-coded CUDA where a device variable is defined: this line ignores it "
                "and fails where CUDA is absent; use .to(device) / device=device");
  }
}

// Whether the file puts anything on a device: `.to(device)`-style moves and
// `device=` (Scope::uses_device), `.cuda()`, `torch.device(...)`, `.to(X)`
// with X naming a rank, a GPU, CUDA or a device (`.to(local_rank)`).
// Without one, `.item()` reads a CPU tensor and waits for nothing.
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

void check_item_per_step(const Source& source, Sink& sink) {
  if (!uses_a_device(source)) return;
  for (const Call& call : source.calls()) {
    // Under a condition (`if step % 100 == 0`) it is not every step.
    if (call.method != "item" || call.conditional || call.loop == Call::kNoLoop ||
        !source.is_training_loop(call.loop) ||
        ts_node_named_child_count(field(call.node, "arguments")) != 0) {
      continue;
    }
    sink.report(call.node, "DC114",
                ".item() on every step of a training loop waits for the device each time; "
                "accumulate on the device (total += loss.detach()) and read it once per "
                "epoch or under a logging condition");
  }
}

// DC118: y = x.to("cpu", non_blocking=True), then y read before anything
// synchronises: the copy may not have landed yet.
void check_unsynchronised_reads(const Source& source, Sink& sink) {
  for (const Call& copy : source.calls()) {
    if (copy.method != "to") continue;
    const TSNode nb = source.keyword(copy.node, "non_blocking");
    if (ts_node_is_null(nb) || source.text(nb) != "True") continue;
    const std::vector<TSNode> args = source.positional(copy.node);
    const TSNode target = args.empty() ? source.keyword(copy.node, "device") : args[0];
    if (string_value(source, target) != std::optional<std::string>("cpu")) continue;
    const TSNode parent = ts_node_parent(copy.node);
    if (!is(parent, "assignment") || !is(field(parent, "left"), "identifier")) continue;
    const std::string_view name = source.text(field(parent, "left"));
    for (const Call& later : source.calls()) {
      if (later.scope != copy.scope || ts_node_start_byte(later.node) <= ts_node_end_byte(parent)) {
        continue;
      }
      if (later.method == "synchronize" || later.qualified == "torch.cuda.synchronize") break;
      bool reads = is(later.object, "identifier") && source.text(later.object) == name &&
                   later.method != "to" && later.method != "cuda";
      for (TSNode arg : source.positional(later.node)) {
        reads = reads || (is(arg, "identifier") && source.text(arg) == name);
      }
      if (!reads) continue;
      sink.report(later.node, "DC118",
                  std::string(name) +
                      " comes from a non_blocking=True copy to the host and is read before any "
                      "synchronisation: it may not have arrived; call "
                      "torch.cuda.synchronize() (or an event's synchronize()) first, or copy "
                      "blocking");
      break;
    }
  }
}

}  // namespace

void check_places(const Source& source, Sink& sink) {
  check_workers(source, sink);
  check_hard_coded(source, sink);
  check_item_per_step(source, sink);
  check_unsynchronised_reads(source, sink);
}

}  // namespace devcheck::lint::detail
