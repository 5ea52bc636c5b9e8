// load_state_dict from tensors in memory: match keys and shapes against the
// module, check everything, then copy. The path overload (load.cc) and the
// trainer's resume both load through it.
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/nn/module.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "devcheck/checkpoint.h"
#include "devcheck/error.h"

namespace devcheck {

LoadReport load_state_dict(torch::nn::Module& module,
                           const std::vector<std::pair<std::string, at::Tensor>>& tensors,
                           const LoadOptions& options, const std::string& source) {
  LoadReport report;
  report.path = source;
  if (options.strip_prefix()) {
    report.stripped_prefix = *options.strip_prefix();
  } else if (!tensors.empty() && std::all_of(tensors.begin(), tensors.end(), [](const auto& kv) {
               return kv.first.rfind("module.", 0) == 0;
             })) {
    report.stripped_prefix = "module.";
  }
  const std::string& prefix = report.stripped_prefix;
  std::map<std::string, at::Tensor> targets;
  std::vector<std::string> order;
  for (const auto& item : module.named_parameters(/*recurse=*/true)) {
    targets[item.key()] = item.value();
    order.push_back(item.key());
  }
  for (const auto& item : module.named_buffers(/*recurse=*/true)) {
    if (!item.value().defined()) continue;
    targets[item.key()] = item.value();
    order.push_back(item.key());
  }
  std::map<std::string, const at::Tensor*> found;
  for (const auto& [raw_key, tensor] : tensors) {
    std::string key = raw_key;
    if (!prefix.empty() && key.rfind(prefix, 0) == 0) key = key.substr(prefix.size());
    const auto it = targets.find(key);
    if (it == targets.end()) {
      report.unexpected.push_back(key);
      continue;
    }
    if (it->second.sizes() != tensor.sizes()) {
      report.mismatched.push_back({key, it->second.sizes().vec(), tensor.sizes().vec()});
      continue;
    }
    found[key] = &tensor;
  }
  for (const auto& key : order) {
    const bool mismatched = std::any_of(report.mismatched.begin(), report.mismatched.end(),
                                        [&](const auto& m) { return m.key == key; });
    if (found.count(key) == 0 && !mismatched) report.missing.push_back(key);
  }
  if (options.strict() && !report.ok()) {
    const std::string text = report.to_text();
    throw InvalidArgumentError(fmt::format(
        "[devcheck] load_state_dict: '{}' does not match the module ({}). Nothing was loaded. "
        "Fix: pass LoadOptions().strict(false) to load the keys that match, or set strip_prefix",
        source, text.substr(0, text.size() - 1)));
  }
  c10::AutoGradMode no_grad(false);
  for (const auto& [key, tensor] : found) {
    targets[key].copy_(*tensor);
    ++report.loaded;
  }
  return report;
}

}  // namespace devcheck
