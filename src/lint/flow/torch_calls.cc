// The device flow's calls of torch's modules and functions (flow.h): what a
// module given tensors returns and where its inputs meet its parameters, and
// which of a torch function's tensor arguments meet (calls.cc reads the
// calls themselves).
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "../common.h"
#include "call_args.h"
#include "run.h"

namespace devcheck::lint::detail {

namespace {

// Whether `a`, an argument of the CTC loss `qualified` (torch.nn.functional.ctc_loss, or a
// call of an nn.CTCLoss), is its targets, which it takes on the CPU beside log_probs on a
// device: ATen's LossCTC.cpp moves them to log_probs' device itself (cuDNN's path wants them
// on the CPU). Not where another argument is a host tensor too (lengths made on the host
// beside GPU log-probabilities: EasyOCR's validation): the call meets there as before, at its
// first host argument.
bool ctc_host_targets(std::string_view qualified, const std::vector<FlowRun::Arg>& args,
                      const FlowRun::Arg& a) {
  if (qualified != "torch.nn.functional.ctc_loss" && qualified != "torch.nn.CTCLoss" &&
      qualified != "torch.nn.modules.loss.CTCLoss") {
    return false;
  }
  const FlowRun::Arg* targets = nullptr;
  int index = 0;
  for (const FlowRun::Arg& b : args) {
    if (b.keyword == "targets" || (b.keyword.empty() && index == 1)) targets = &b;
    if (b.keyword.empty()) {
      // A splat hides which argument is which.
      if (is(b.node, "list_splat")) return false;
      ++index;
    }
  }
  if (targets != &a) return false;
  return std::none_of(args.begin(), args.end(), [&](const FlowRun::Arg& b) {
    return &b != &a && host_tensor(effective(b.value));
  });
}

}  // namespace

Value FlowRun::eval_module_call(TSNode call, TSNode function, const Value& module,
                                const std::vector<Arg>& args, Frame& frame) {
  pass_batch_to_forward(call, module, args, frame);
  // Whether `a` is the host targets of a CTC loss made in the file
  // (`nn.CTCLoss()`): asked only of a host argument, and only a constructor
  // whose name ends so is qualified.
  auto ctc_targets = [&](const Arg& a) {
    if (!is(module.made, "call")) return false;
    const TSNode made_by = field(module.made, fields().function);
    const std::string_view text = source_.text(made_by);
    return text.size() >= 7 && text.substr(text.size() - 7) == "CTCLoss" &&
           ctc_host_targets(source_.qualify(made_by), args, a);
  };
  for (const Arg& a : args) {
    if (is(a.node, "identifier"))
      out_.module_inputs_.emplace_back(frame.scope, source_.text(a.node));
    const Value e = effective(a.value);
    // A host copy that came back from a function of the file it was handed
    // to (`knn(x.cpu())`), given to a module of the file: that module's code
    // decides where it goes.
    const bool helper_copy =
        e.origin == Origin::kHostCopy && module.cls >= 0 && copied_for_a_call(e.made, call);
    if ((module.place == Place::kDevice || module.place == Place::kModuleDevice) &&
        (host_tensor(e) || host_data(e)) && !module.scatters && !helper_copy && !ctc_targets(a)) {
      out_.meetings_.push_back({call, a.node, e, module, frame.scope});
    } else if (module_left_on_host(module) && device_value(e) && e.place == Place::kDevice) {
      out_.meetings_.push_back({call, function, module, e, frame.scope});
    } else if (module.held_place == Place::kHost && device_value(e)) {
      Value held;
      held.kind = Kind::kTensor;
      held.place = Place::kHost;
      held.origin = module.held_origin;
      held.made = module.held_made;
      out_.meetings_.push_back({call, module.held_argument, held, e, frame.scope});
      break;
    }
  }
  // A module without parameters (a loss, an activation) computes on what it
  // is given: a host tensor and a device one meet there, as in a torch
  // function (`criterion(model(x), labels)` with labels left on the host).
  if (module.place == Place::kHost && !module_left_on_host(module) &&
      module.held_place != Place::kHost && !module.scatters) {
    const Arg* host = nullptr;
    const Arg* device = nullptr;
    for (const Arg& a : args) {
      const Value e = effective(a.value);
      if (host == nullptr && host_tensor(e) && !ctc_targets(a)) host = &a;
      if (device == nullptr && device_value(e) && e.place == Place::kDevice) device = &a;
    }
    if (host != nullptr && device != nullptr) {
      out_.meetings_.push_back(
          {call, host->node, effective(host->value), effective(device->value), frame.scope});
    }
  }
  if (host_output(module, args)) return Value{};
  Value out;
  out.kind = Kind::kTensor;
  if (module.place == Place::kDevice || module.place == Place::kModuleDevice ||
      module_left_on_host(module)) {
    out.place = module.place;
    forward_tuple(module, out);
    return out;
  }
  // A module without parameters (a loss, an activation) computes where its
  // inputs are.
  bool any = false;
  bool host = true;
  for (const Arg& a : args) {
    const Value e = effective(a.value);
    if (e.kind != Kind::kTensor && e.place == Place::kUnknown) continue;
    any = true;
    host = host && e.place == Place::kHost;
    if (e.place == Place::kDevice) out.place = Place::kDevice;
    if (e.place == Place::kModuleDevice && out.place != Place::kDevice) {
      out.place = Place::kModuleDevice;
    }
  }
  if (any && host) out.place = Place::kHost;
  return out;
}

Value FlowRun::eval_torch_function(TSNode call, std::string_view qualified,
                                   const std::vector<Arg>& args, Frame& frame) {
  // device= puts the result there, from arguments anywhere
  // (torch.sparse_coo_tensor(indices, values, device=...)).
  if (const Arg* device = keyword_arg(args, "device")) {
    Value placed;
    placed.kind = Kind::kTensor;
    placed.place = device_of(device->node, frame);
    return placed;
  }
  const Arg* host = nullptr;
  const Arg* device = nullptr;
  bool any_tensor = false;
  bool all_host = true;
  // Only 0-dim tensors given, none in a list (torch.log(torch.tensor(2.0))):
  // the result is 0-dim too (not torch.stack([a, b]), whose list is one).
  bool all_scalar = true;
  Place place = Place::kUnknown;
  for (const Arg& a : args) {
    const Value e = effective(a.value);
    if (e.kind == Kind::kTensor) all_scalar = all_scalar && e.scalar && !a.in_sequence;
    if (host == nullptr && host_tensor(e) && !ctc_host_targets(qualified, args, a)) host = &a;
    if (device == nullptr && device_value(e)) device = &a;
    if (e.kind == Kind::kTensor || e.place != Place::kUnknown) {
      any_tensor = true;
      all_host = all_host && e.place == Place::kHost;
      if (e.place == Place::kDevice) place = Place::kDevice;
      if (e.place == Place::kModuleDevice && place != Place::kDevice) place = Place::kModuleDevice;
    }
  }
  if (host != nullptr && device != nullptr) {
    out_.meetings_.push_back(
        {call, host->node, effective(host->value), effective(device->value), frame.scope});
  }
  Value out;
  out.kind = Kind::kTensor;
  if (any_tensor && all_host && host != nullptr) {
    out = effective(host->value);
    out.kind = Kind::kTensor;
  } else {
    out.place = place;
  }
  static constexpr std::array<std::string_view, 6> kReductions = {
      "torch.sum", "torch.mean", "torch.max", "torch.min", "torch.norm", "torch.prod"};
  out.scalar = among(qualified, kReductions) && args.size() == 1;
  if (any_tensor && all_scalar && host == nullptr && device == nullptr) {
    out.scalar = true;
    if (all_host) out.place = Place::kHost;
  }
  return out;
}

}  // namespace devcheck::lint::detail
