// DC101 factory-without-device: a tensor made by torch.zeros(...) and the
// other factories without device= is on the CPU; found where the device flow
// sees it meet a tensor on a device (docs/lint.md, "The device flow"). Not
// in a module only ever built on an RPC worker (torch.distributed.rpc.remote),
// nor in a private module class only private functions of a file that puts
// nothing on a device build.
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// Whether the class whose method `scope` is, is only ever built on an RPC
// worker: handed as the callable to torch.distributed.rpc.remote
// (`rpc.remote(worker, RemoteEM, args=(...))`) and never called in the
// file. The worker makes it on the CPU from the arguments the call sends,
// keeps it there (the caller holds an RRef), and nothing moves it: the
// module's device is the CPU.
bool built_only_by_rpc(const Source& source, int scope) {
  const int function = source.function_of(scope);
  const int cls = function < 0 ? -1 : source.scopes()[function].owner_class;
  if (cls < 0) return false;
  const std::string_view name = source.scopes()[cls].name;
  bool remote = false;
  for (const Call& call : source.calls()) {
    if (source.text(field(call.node, "function")) == name) return false;
    if (call.qualified != "torch.distributed.rpc.remote" &&
        call.qualified != "torch.distributed.rpc.api.remote") {
      continue;
    }
    const std::vector<TSNode> args = source.positional(call.node);
    TSNode callable = source.keyword(call.node, "func");
    if (ts_node_is_null(callable) && args.size() > 1) callable = args[1];
    remote = remote || (!ts_node_is_null(callable) && source.text(callable) == name);
  }
  return remote;
}

// Whether the class whose method `scope` is stays on the host: a private
// class (`_NISQADIM`: no other file builds it), built in this file only by
// private functions (`_load_nisqa_model()`, which hands it to no other
// file), in a file that puts nothing on a device: nothing moves it, so the
// module's device is the CPU and its inputs come from the host.
bool built_only_on_host(const Source& source, int scope) {
  const int function = source.function_of(scope);
  const int cls = function < 0 ? -1 : source.scopes()[function].owner_class;
  if (cls < 0) return false;
  const std::string_view name = source.scopes()[cls].name;
  if (name.rfind('_', 0) != 0 || name.rfind("__", 0) == 0 || uses_a_device(source)) return false;
  bool built = false;
  for (const Call& call : source.calls()) {
    if (source.text(field(call.node, "function")) != name) continue;
    const int builder = source.function_of(call.scope);
    if (builder < 0) return false;
    // A method of a public nn.Module (its `__init__` too) builds for that
    // module, which users of the file build and move; any other builder
    // must be private.
    const Scope& by = source.scopes()[builder];
    if (by.owner_class >= 0) {
      const std::string_view owner = source.scopes()[by.owner_class].name;
      const auto info = source.classes().find(std::string(owner));
      const bool module =
          info != source.classes().end() && (info->second.is_module || info->second.foreign_base);
      if (module && owner.rfind('_', 0) != 0) return false;
    }
    if (by.name.rfind('_', 0) != 0) return false;
    built = true;
  }
  return built;
}

void check(const RuleContext& c) {
  std::set<uint32_t> done;
  for (const Meeting& m : c.flow.meetings()) {
    if (m.host.origin != Origin::kFactory || ts_node_is_null(m.host.made) ||
        !done.insert(ts_node_start_byte(m.host.made)).second) {
      continue;
    }
    const std::string factory = c.source.dotted(field(m.host.made, "function"));
    if (m.other.kind == Kind::kGenerator) {
      std::string message = factory;
      message += "(...) without device= makes a tensor on the CPU, but its generator=";
      if (!ts_node_is_null(m.other.made)) {
        message += " (";
        message += line_of(m.other.made);
        message += ")";
      }
      message +=
          " is on a device, and a generator draws only where it is: pass device= (the "
          "generator's device)";
      c.sink.report(m.host.made, "DC101", std::move(message));
      continue;
    }
    if (m.other.place == Place::kModuleDevice &&
        (built_only_by_rpc(c.source, m.scope) || built_only_on_host(c.source, m.scope))) {
      continue;
    }
    const char* other = m.other.place == Place::kModuleDevice ? "the module's device" : "a device";
    c.sink.report(m.host.made, "DC101",
                  factory + "(...) without device= makes a tensor on the CPU, and " +
                      line_of(m.where) + " (in " + where_in(c.source, m.where) +
                      ") uses it with tensors on " + other +
                      ": a device mismatch there; pass device= (e.g. device=x.device)");
  }
}

}  // namespace

extern const Rule kRuleDC101;
const Rule kRuleDC101 = {{"DC101", "factory-without-device",
                          "A tensor made without device= meets tensors on a device.", false},
                         "import torch\n"
                         "import torch.nn as nn\n"
                         "class Seq(nn.Module):\n"
                         "    def forward(self, x):\n"
                         "        h = torch.zeros(x.size(0), 51)\n"
                         "        return x + h\n",
                         "import torch\n"
                         "import torch.nn as nn\n"
                         "class Seq(nn.Module):\n"
                         "    def forward(self, x):\n"
                         "        h = torch.zeros(x.size(0), 51, device=x.device, dtype=x.dtype)\n"
                         "        return x + h\n",
                         check};

}  // namespace devcheck::lint::detail
