// devcheck lint's notebooks on untrusted bytes: the input as a notebook, and
// the input as the source of a cell of a real notebook. Findings must point
// into cells that exist, and the fixes applied to a notebook must leave JSON
// that parses.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "devcheck/lint.h"
#include "lint/notebook.h"

namespace {

void check(const std::string& json, bool valid) {
  const auto findings = devcheck::lint::detail::check_notebook(json, "f.ipynb", {}, {});
  for (const auto& f : findings) {
    if (f.line < 1 || f.column < 1 || f.cell < 0) {
      std::fprintf(stderr, "a finding outside the notebook: cell %d line %d column %d\n", f.cell,
                   f.line, f.column);
      __builtin_trap();
    }
  }
  if (!valid) return;
  const std::string after = devcheck::lint::apply_fixes(json, findings);
  if (nlohmann::json::parse(after, nullptr, false).is_discarded()) {
    std::fprintf(stderr, "the fixed notebook is not JSON:\n%s\n", after.c_str());
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  check(input, false);
  const nlohmann::json notebook = {
      {"cells",
       {{{"cell_type", "code"},
         {"source",
          {"import torch\n", "%matplotlib inline\n", "scaler = torch.cuda.amp.GradScaler()\n"}}},
        {{"cell_type", "code"}, {"source", input}},
        {{"cell_type", "code"},
         {"source", "x = torch.zeros(3) + torch.ones(3, device='cuda')\n"}}}},
      {"nbformat", 4}};
  check(notebook.dump(1, ' ', false, nlohmann::json::error_handler_t::replace), true);
  return 0;
}
