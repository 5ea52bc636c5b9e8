// DC103 numpy-tensor-unmoved: torch.from_numpy(a) / torch.as_tensor(a) of a
// NumPy array (or a list) makes a tensor on the CPU; found where the device
// flow sees it meet a tensor on a device.
#include <set>

#include "../common.h"
#include "../flow/flow.h"
#include "../rule.h"

namespace devcheck::lint::detail {

namespace {

void check(const RuleContext& c) {
  std::set<uint32_t> done;
  for (const Meeting& m : c.flow.meetings()) {
    if (m.host.origin != Origin::kNumpy || ts_node_is_null(m.host.made) ||
        !done.insert(ts_node_start_byte(m.host.made)).second) {
      continue;
    }
    const std::string function = c.source.dotted(field(m.host.made, "function"));
    std::string message = function;
    message += "(...) makes a tensor on the CPU, and ";
    message += line_of(m.where);
    message +=
        " uses it unmoved with tensors on a device: the op raises a device mismatch; move it "
        "where it is made: ";
    message += function;
    message += "(...).to(device)";
    c.sink.report(m.host.made, "DC103", std::move(message));
  }
}

}  // namespace

extern const Rule kRuleDC103;
const Rule kRuleDC103 = {
    {"DC103", "numpy-tensor-unmoved",
     "torch.from_numpy / torch.as_tensor of an array used unmoved with device tensors.", false},
    "import numpy as np\n"
    "import torch\n"
    "import torch.nn as nn\n"
    "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
    "model = nn.Linear(8, 1).to(device)\n"
    "def predict(batch):\n"
    "    x = torch.from_numpy(batch).float()\n"
    "    return model(x)\n",
    "import numpy as np\n"
    "import torch\n"
    "import torch.nn as nn\n"
    "device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
    "model = nn.Linear(8, 1).to(device)\n"
    "def predict(batch):\n"
    "    x = torch.from_numpy(batch).float().to(device)\n"
    "    return model(x)\n",
    check};

}  // namespace devcheck::lint::detail
