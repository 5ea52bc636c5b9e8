// devcheck lint on untrusted text: random bytes, and a training script with
// the input spliced into it (mutated Python). Every finding must point
// inside the file, and applying the fixes must give text that lints again.
// The parser as devcheck builds it (the runtime and the grammar changed by
// src/lint/runtime_patch.cmake and grammar_patch.cmake) must give each text
// the tree the parser as published gives it.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "devcheck/lint.h"
#include "lint/tree_compare.h"

namespace {

constexpr std::string_view kScript =
    "import torch\n"
    "import torch.nn as nn\n"
    "from torch.utils.data import DataLoader, Dataset\n"
    "device = torch.device('cuda')\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.fc = nn.Linear(4, 4)\n"
    "        self.mask = torch.ones(4)\n"
    "    def forward(self, x):\n"
    "        return self.fc(x) * torch.arange(4)\n"
    "def collate(b):\n"
    "    return torch.stack(b).cuda()\n"
    "loader = DataLoader(ds, num_workers=2, collate_fn=collate)\n"
    "model = Net().to(device)\n"
    "scaler = torch.cuda.amp.GradScaler()\n"
    "for x, y in loader:\n"
    "    x.cuda()\n"
    "    loss = model(x.to(device, non_blocking=True)).sum()\n"
    "    loss.backward()\n"
    "    print(loss.item(), x.cuda().numpy())\n"
    "torch.save(nn.DataParallel(model).state_dict(), 'm.pt')\n"
    "torch.set_default_tensor_type(torch.cuda.FloatTensor)\n"
    "state = torch.load('m.pt')\n";

void check(const std::string& text) {
  static devcheck::lint::detail::ParserPair parsers;
  const std::string difference = parsers.difference(text);
  if (!difference.empty()) {
    std::fprintf(stderr, "the parsers' trees differ: %s\n", difference.c_str());
    __builtin_trap();
  }
  const std::vector<devcheck::lint::Finding> findings = devcheck::lint::lint_source(text, "f.py");
  for (const devcheck::lint::Finding& f : findings) {
    if (f.line < 1 || f.column < 1 || f.end_line < f.line) __builtin_trap();
    if (f.fix) {
      for (const devcheck::lint::Edit& e : f.fix->edits) {
        if (e.start_byte > e.end_byte || e.end_byte > text.size()) __builtin_trap();
      }
    }
  }
  const std::string fixed = devcheck::lint::apply_fixes(text, findings);
  if (fixed != text) {
    (void)devcheck::lint::lint_source(fixed, "f.py");
    (void)devcheck::lint::unified_diff("f.py", text, fixed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  check(input);
  if (size > 2) {
    // Splice the rest of the input into the script at a place the first two bytes pick.
    const std::size_t at =
        (static_cast<std::size_t>(data[0]) << 8 | data[1]) % (kScript.size() + 1);
    std::string mutated(kScript.substr(0, at));
    mutated += input.substr(2);
    mutated += kScript.substr(at);
    check(mutated);
  }
  return 0;
}
