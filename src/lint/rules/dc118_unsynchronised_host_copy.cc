// DC118 unsynchronised-host-copy: `y = x.to("cpu", non_blocking=True)`, then
// y read before anything synchronises.
#include "../common.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// DC118: y = x.to("cpu", non_blocking=True), then y read before anything
// synchronises: the copy may not have landed yet.
void check(const RuleContext& c) {
  const Source& source = c.source;
  Sink& sink = c.sink;
  for (const Call& copy : source.calls()) {
    if (copy.method != "to") continue;
    const TSNode nb = source.keyword(copy.node, "non_blocking");
    if (ts_node_is_null(nb) || source.text(nb) != "True") continue;
    const std::vector<TSNode> args = source.positional(copy.node);
    const TSNode target = args.empty() ? source.keyword(copy.node, "device") : args[0];
    if (!is_cpu_string(string_value(source, target))) continue;
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

extern const Rule kRuleDC118;
const Rule kRuleDC118 = {
    {"DC118", "unsynchronised-host-copy",
     "A non_blocking=True copy to the host read before any synchronisation.", false},
    "def fetch(x):\n"
    "    y = x.to(\"cpu\", non_blocking=True)\n"
    "    return y.numpy()\n",
    "import torch\n"
    "def fetch(x):\n"
    "    y = x.to(\"cpu\", non_blocking=True)\n"
    "    torch.cuda.synchronize()\n"
    "    return y.numpy()\n",
    check};

}  // namespace devcheck::lint::detail
