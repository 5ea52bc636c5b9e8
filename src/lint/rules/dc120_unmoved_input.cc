// DC120 unmoved-input: a batch of a DataLoader, an item of a Dataset, an
// image torchvision made a tensor or a tensor copied to the host meets
// tensors on a device unmoved; or a model
// made on the CPU and never moved is given tensors on a device; or a module
// on a device moved to the CPU in a loop that gives it inputs.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {
namespace {

// `model.cpu()` (or `.to("cpu")`) of a module on a device, anywhere in a
// loop's body (`torch.save(model.cpu().state_dict(), f)`): nn.Module's
// moves work in place, so the next pass of the loop, which gave the module
// inputs before this line, runs it on the CPU. Not where the loop moves it
// back, assigns the name, or takes it as the loop's variable.
void moved_to_host_in_a_loop(const RuleContext& c) {
  for (const Move& move : c.flow.moves()) {
    if (move.target != Place::kHost || move.value.kind != Kind::kModule ||
        move.value.place != Place::kDevice || !is(move.object, "identifier")) {
      continue;
    }
    const TSNode loop = enclosing_loop(move.call);
    if (ts_node_is_null(loop)) continue;
    const std::string_view name = c.source.text(move.object);
    if (c.source.text(field(loop, "left")) == name) continue;
    const auto assigns = c.source.scopes()[move.scope].assigns.find(std::string(name));
    if (assigns != c.source.scopes()[move.scope].assigns.end() &&
        std::any_of(assigns->second.begin(), assigns->second.end(),
                    [&](TSNode value) { return within(value, loop); })) {
      continue;
    }
    bool back = false;
    for (const Move& other : c.flow.moves()) {
      back = back || (other.target == Place::kDevice && c.source.text(other.object) == name &&
                      within(other.call, loop));
    }
    if (back) continue;
    // Given inputs earlier in the loop: called, or a method given arguments.
    TSNode used{};
    for (const Call& call : c.source.calls()) {
      if (call.scope != move.scope || !within(call.node, loop) ||
          ts_node_start_byte(call.node) >= ts_node_start_byte(move.call)) {
        continue;
      }
      const bool called = c.source.text(field(call.node, "function")) == name;
      const bool given = !ts_node_is_null(call.object) && c.source.text(call.object) == name &&
                         call.method != "to" && call.method != "cuda" && call.method != "cpu" &&
                         !c.source.positional(call.node).empty();
      if (called || given) {
        used = call.node;
        break;
      }
    }
    if (ts_node_is_null(used)) continue;
    std::string message(name);
    message += ".";
    message += c.source.text(field(field(move.call, "function"), "attribute"));
    message +=
        "(...) moves the module itself to the CPU (an nn.Module moves in place), inside a "
        "loop that gives it inputs while it is on a device (";
    message += line_of(used);
    message +=
        "): the next pass runs it on the CPU, a device mismatch; save a copy instead "
        "({k: v.cpu() for k, v in ";
    message += name;
    message += ".state_dict().items()}) or move it back";
    c.sink.report(move.call, "DC120", std::move(message));
  }
}

// A tokenizer's output (return_tensors="pt") assigned to a name in the
// function where it meets a device and never moved there, whole or an entry
// of it (`enc = tokenizer(...)`, then `model.generate(enc["input_ids"])`):
// it belongs on the device where it is made (`tokenizer(...).to(device)`),
// found there; null otherwise (a batch whose other entries the function
// moves is found where the one left meets the device).
TSNode unmoved_encoding(const RuleContext& c, const Meeting& m) {
  const TSNode made = m.host.made;
  if (m.host.origin != Origin::kBatch || !is(made, "call") ||
      ts_node_is_null(c.source.keyword(made, "return_tensors"))) {
    return TSNode{};
  }
  const TSNode assignment = ts_node_parent(made);
  const TSNode left = field(assignment, "left");
  if (!is(assignment, "assignment") || !is(left, "identifier") ||
      !within(made, c.source.scopes()[m.scope].node)) {
    return TSNode{};
  }
  const std::string_view name = c.source.text(left);
  for (const Move& move : c.flow.moves()) {
    if (move.scope != m.scope) continue;
    const std::string_view object = c.source.text(move.object);
    if (object.substr(0, name.size()) == name &&
        (object.size() == name.size() || object[name.size()] == '[' ||
         object[name.size()] == '.')) {
      return TSNode{};
    }
  }
  return made;
}

// Whether the batch made at `made` (the loader a loop takes its batches
// from: `DataLoader(...)`, or a name assigned one in the function) comes from
// a DataLoader over a dataset whose place the flow does not know (a
// TensorDataset of the caller's tensors): its batches are where those
// tensors are, not on the host.
bool loader_over_unplaced_tensors(const RuleContext& c, TSNode made) {
  std::vector<TSNode> calls;
  if (is(made, "call")) {
    calls.push_back(made);
  } else if (is(made, "identifier")) {
    for (const Scope& scope : c.source.scopes()) {
      if (!within(made, scope.node) || scope.kind == ScopeKind::kClass) continue;
      const auto assigns = scope.assigns.find(std::string(c.source.text(made)));
      if (assigns == scope.assigns.end()) continue;
      calls = assigns->second;  // the innermost scope's, found last
    }
  }
  for (const TSNode call : calls) {
    for (const LoaderMade& loader : c.flow.loaders()) {
      if (ts_node_eq(loader.call, call) && loader.dataset.kind == Kind::kDataset &&
          loader.dataset.place == Place::kUnknown) {
        return true;
      }
    }
  }
  return false;
}

void check(const RuleContext& c) {
  moved_to_host_in_a_loop(c);
  std::set<uint32_t> done;
  // (Or hands its modules to a framework that moves them: a LightningModule.)
  const bool moves_to_device =
      c.flow.moves_a_module() ||
      std::any_of(c.flow.moves().begin(), c.flow.moves().end(),
                  [](const Move& move) { return move.target == Place::kDevice; });
  for (const Meeting& m : c.flow.meetings()) {
    const Origin o = m.host.origin;
    // A copy to the host in a module's method (`y = x.cpu()`, then
    // `self.layer(y)`) meets the module's device only in a file that moves
    // something to a device: else the copy is deliberate, fine on the CPU.
    if (o == Origin::kHostCopy && m.other.place == Place::kModuleDevice && !moves_to_device) {
      continue;
    }
    // A model left on the CPU is found where it is made (there it is moved),
    // unless a call passed it to the function that gives it device tensors
    // (a trainer given the model): there, once, where the two meet. A batch
    // or an item where it meets the device.
    const bool unmoved_here = o == Origin::kUnmovedModule && !m.host.passed && !m.host.move_skipped;
    // A cast to a legacy CPU type (`g.type(torch.LongTensor)`) meant a
    // dtype: the copy to the host is the mistake, found there.
    const bool cast = o == Origin::kHostCopy && is(m.host.made, "call") &&
                      c.source.text(field(field(m.host.made, "function"), "attribute")) == "type";
    const TSNode encoding = unmoved_encoding(c, m);
    const TSNode at = unmoved_here || cast || !ts_node_is_null(encoding) ? m.host.made : m.host_at;
    if ((o != Origin::kBatch && o != Origin::kDatasetItem && o != Origin::kHostCopy &&
         o != Origin::kUnmovedModule && o != Origin::kImage && o != Origin::kInput &&
         o != Origin::kReleased) ||
        ts_node_is_null(at) ||
        (o == Origin::kBatch && loader_over_unplaced_tensors(c, m.host.made)) ||
        !done.insert(ts_node_start_byte(at)).second) {
      continue;
    }
    if (o == Origin::kUnmovedModule && !unmoved_here && !ts_node_is_null(m.host.made) &&
        !done.insert(ts_node_start_byte(m.host.made)).second) {
      continue;
    }
    const std::string name(c.source.text(m.host_at));
    const std::string made = ts_node_is_null(m.host.made) ? "" : " (" + line_of(m.host.made) + ")";
    std::string message;
    const SkippedMove* skipped = nullptr;
    for (const SkippedMove& s : c.flow.skipped_moves()) {
      if (m.host.move_skipped && s.scope == m.scope) skipped = &s;
    }
    if (skipped != nullptr) {
      message = name + " is a model made";
      message += made;
      message += " on the CPU that only other methods of its class move to a device, and ";
      message += line_of(skipped->call);
      message += " (in " + where_in(c.source, skipped->call) + ") calls ";
      message += c.source.scopes()[m.scope].name;
      message +=
          "() without them: here it is given tensors on a device, a device mismatch; move it "
          "here too (.to(device)) or where it is made";
    } else if (o == Origin::kUnmovedModule && !unmoved_here) {
      message = name + " is a model ";
      message += c.source.text(field(m.host.made, "function"));
      message += "(...) made";
      message += made;
      message +=
          " on the CPU and never moved to a device; passed here, it is given tensors on a "
          "device: a device mismatch; move it where it is made (.to(device)) or here";
    } else if (o == Origin::kUnmovedModule) {
      message = std::string(c.source.text(field(m.host.made, "function"))) +
                "(...) makes a model on the CPU that is never moved to a device, and " +
                line_of(m.where) + " gives " + name +
                " tensors on a device: a device mismatch; move it where it is made: .to(device)";
    } else if (o == Origin::kReleased) {
      message = name + " was moved back to the CPU when ";
      message += c.source.text(field(m.host.made, "function"));
      message += "(...) ended";
      message += made;
      message +=
          " (Lightning's teardown), and is given tensors on a device here: a device mismatch; "
          "move it to the device again (.to(device)) first";
    } else if (cast) {
      message = std::string(c.source.text(m.host.made)) +
                " casts to a legacy CPU type, which copies the tensor to the host, and " +
                line_of(m.where) +
                " uses it with tensors on a device: a device mismatch; cast to the dtype "
                "alone (.long(), .to(torch.int64))";
    } else if (!ts_node_is_null(encoding)) {
      message = std::string(c.source.text(field(ts_node_parent(m.host.made), "left"))) +
                " is a tokenizer's output, on the CPU, never moved, and " + line_of(m.where) +
                " gives " + name +
                " to tensors on a device: a device mismatch; move it where it is made "
                "(tokenizer(...).to(device))";
    } else if (o == Origin::kInput) {
      message = name + " is given to " + std::string(c.source.scopes()[m.scope].name) +
                "() beside a tensor it moves to a device itself (so its caller hands them from "
                "the host), is never moved, and meets tensors on a device here: a device "
                "mismatch; move it too (.to(device))";
    } else {
      // A tokenizer's tensors (return_tensors="pt") come as a batch does.
      const bool tokenized = o == Origin::kBatch && is(m.host.made, "call") &&
                             !ts_node_is_null(c.source.keyword(m.host.made, "return_tensors"));
      message = name;
      message += tokenized                   ? " is a tokenizer's output"
                 : o == Origin::kBatch       ? " is a batch of a DataLoader"
                 : o == Origin::kDatasetItem ? " is an item of a Dataset"
                 : o == Origin::kImage       ? " is an image made a tensor by torchvision"
                                             : " was copied to the host";
      message += made;
      message +=
          ", on the CPU, and meets tensors on a device here unmoved: a device mismatch; move "
          "it to the device first (.to(device))";
    }
    c.sink.report(at, "DC120", std::move(message));
  }
}

}  // namespace

extern const Rule kRuleDC120;
const Rule kRuleDC120 = {
    {"DC120", "unmoved-input",
     "A batch, dataset item or model left on the host meets tensors on a device.", false},
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "model = Net().to(\"cuda\")\n"
    "for x, y in DataLoader(data, batch_size=8):\n"
    "    out = model(x.to(\"cuda\"))\n"
    "    correct = (out.argmax(1) == y).sum()\n",
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "model = Net().to(\"cuda\")\n"
    "for x, y in DataLoader(data, batch_size=8):\n"
    "    x, y = x.to(\"cuda\"), y.to(\"cuda\")\n"
    "    out = model(x)\n"
    "    correct = (out.argmax(1) == y).sum()\n",
    check};

}  // namespace devcheck::lint::detail
