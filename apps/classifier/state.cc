#include "classifier/state.h"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "detail/compat.h"
#include "devcheck/checkpoint.h"
#include "devcheck/error.h"
#include "devcheck/format/units.h"

namespace devcheck::detail {
namespace {

constexpr const char* kModelPrefix = "model.";

std::string shape_of(const at::Tensor& t) {
  return format::shape_text(t.sizes().data(), t.sizes().size());
}

at::Tensor cpu_copy(const at::Tensor& t) { return t.detach().to(at::kCPU).clone(); }

at::Tensor int_scalar(int64_t v) {
  return at::scalar_tensor(v, at::TensorOptions().dtype(at::kLong));
}
at::Tensor double_scalar(double v) {
  return at::scalar_tensor(v, at::TensorOptions().dtype(at::kDouble));
}

class Entries {
 public:
  Entries(const NamedTensors& entries, const std::string& path) : path_(path) {
    for (const auto& [name, tensor] : entries) map_.emplace(name, tensor);
  }
  bool has(const std::string& key) const { return map_.count(key) != 0; }
  const at::Tensor& get(const std::string& key) const {
    const auto it = map_.find(key);
    if (it == map_.end()) {
      throw FormatError(
          fmt::format("[devcheck] checkpoint {}: expected an entry '{}' (the trainer's checkpoint "
                      "layout), found none; resume only from a checkpoint written by "
                      "devcheck::train_classifier (TrainOptions::out)",
                      path_, key));
    }
    return it->second;
  }
  // `key` with the shape and dtype of `like`, on like's device.
  at::Tensor get_like(const std::string& key, const at::Tensor& like) const {
    const at::Tensor& t = get(key);
    if (t.sizes() != like.sizes()) {
      throw FormatError(
          fmt::format("[devcheck] checkpoint {}: entry '{}' has shape {}, expected {} (a different "
                      "model?)",
                      path_, key, shape_of(t), shape_of(like)));
    }
    return t.to(like.device(), like.scalar_type());
  }
  int64_t get_int(const std::string& key) const { return get(key).item<int64_t>(); }
  double get_double(const std::string& key) const { return get(key).item<double>(); }

 private:
  std::string path_;
  std::map<std::string, at::Tensor> map_;
};

}  // namespace

NamedTensors flatten_training_state(const Classifier& model, torch::optim::Adam& optimizer,
                                    const GradScaler& scaler, TrainingPosition position) {
  NamedTensors out;
  for (const auto& item : model->named_parameters()) {
    out.emplace_back(kModelPrefix + item.key(), cpu_copy(item.value()));
  }
  for (const auto& item : model->named_buffers()) {
    out.emplace_back(kModelPrefix + item.key(), cpu_copy(item.value()));
  }
  const auto& group_options =
      static_cast<const torch::optim::AdamOptions&>(optimizer.param_groups().at(0).options());
  out.emplace_back("optimizer.lr", double_scalar(group_options.lr()));
  auto& states = optimizer.state();
  using StateMap = std::decay_t<decltype(states)>;
  const std::vector<at::Tensor> params = model->parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    const auto it = states.find(optimizer_state_key<StateMap>(params[i].unsafeGetTensorImpl()));
    if (it == states.end()) continue;  // no step taken yet
    const auto& s = static_cast<const torch::optim::AdamParamState&>(*it->second);
    const std::string prefix = fmt::format("optimizer.state.{}.", i);
    out.emplace_back(prefix + "step", int_scalar(s.step()));
    out.emplace_back(prefix + "exp_avg", cpu_copy(s.exp_avg()));
    out.emplace_back(prefix + "exp_avg_sq", cpu_copy(s.exp_avg_sq()));
    if (s.max_exp_avg_sq().defined()) {
      out.emplace_back(prefix + "max_exp_avg_sq", cpu_copy(s.max_exp_avg_sq()));
    }
  }
  if (scaler.is_enabled()) {
    const GradScalerState st = scaler.state_dict();
    out.emplace_back("scaler.scale", double_scalar(st.scale));
    out.emplace_back("scaler.growth_tracker", int_scalar(st.growth_tracker));
    out.emplace_back("scaler.growth_factor", double_scalar(st.growth_factor));
    out.emplace_back("scaler.backoff_factor", double_scalar(st.backoff_factor));
    out.emplace_back("scaler.growth_interval", int_scalar(st.growth_interval));
  }
  out.emplace_back("epoch", int_scalar(position.epoch));
  out.emplace_back("step", int_scalar(position.step));
  return out;
}

TrainingPosition restore_training_state(const NamedTensors& entries, const std::string& path,
                                        Classifier& model, torch::optim::Adam& optimizer,
                                        GradScaler& scaler) {
  // Everything is read and checked before anything changes: the optimizer,
  // scaler and position are staged here, the model is checked and loaded by
  // load_state_dict (all or nothing), and only then is the staged state set.
  const Entries e(entries, path);
  const TrainingPosition position{e.get_int("epoch"), e.get_int("step")};
  std::optional<double> lr;
  if (e.has("optimizer.lr")) lr = e.get_double("optimizer.lr");
  const std::vector<at::Tensor> params = model->parameters();
  std::vector<std::pair<size_t, std::unique_ptr<torch::optim::AdamParamState>>> states;
  for (size_t i = 0; i < params.size(); ++i) {
    const std::string prefix = fmt::format("optimizer.state.{}.", i);
    if (!e.has(prefix + "step")) continue;  // saved before this parameter's first step
    auto s = std::make_unique<torch::optim::AdamParamState>();
    s->step(e.get_int(prefix + "step"));
    s->exp_avg(e.get_like(prefix + "exp_avg", params[i]));
    s->exp_avg_sq(e.get_like(prefix + "exp_avg_sq", params[i]));
    if (e.has(prefix + "max_exp_avg_sq")) {
      s->max_exp_avg_sq(e.get_like(prefix + "max_exp_avg_sq", params[i]));
    }
    states.emplace_back(i, std::move(s));
  }
  std::optional<GradScalerState> scaler_state;
  if (scaler.is_enabled() && e.has("scaler.scale")) {
    GradScalerState st;
    st.scale = e.get_double("scaler.scale");
    st.growth_tracker = e.get_int("scaler.growth_tracker");
    st.growth_factor = e.get_double("scaler.growth_factor");
    st.backoff_factor = e.get_double("scaler.backoff_factor");
    st.growth_interval = e.get_int("scaler.growth_interval");
    scaler_state = st;
  }

  NamedTensors weights;
  for (const auto& [name, tensor] : entries) {
    if (name.rfind(kModelPrefix, 0) == 0) weights.emplace_back(name, tensor);
  }
  try {
    load_state_dict(*model, weights, LoadOptions().strip_prefix(std::string(kModelPrefix)), path);
  } catch (const InvalidArgumentError& err) {
    throw FormatError(fmt::format(
        "[devcheck] checkpoint {}: its '{}' entries do not match the classifier, so nothing was "
        "resumed (model, optimizer and scaler are unchanged): {}; resume only from a checkpoint "
        "written by devcheck::train_classifier (TrainOptions::out)",
        path, kModelPrefix, err.message()));
  }

  if (lr) {
    for (auto& group : optimizer.param_groups()) {
      static_cast<torch::optim::AdamOptions&>(group.options()).lr(*lr);
    }
  }
  auto& optimizer_states = optimizer.state();
  using StateMap = std::decay_t<decltype(optimizer_states)>;
  for (auto& [i, s] : states) {
    optimizer_states[optimizer_state_key<StateMap>(params[i].unsafeGetTensorImpl())] = std::move(s);
  }
  if (scaler_state) scaler.load_state_dict(*scaler_state);
  return position;
}

void save_training_checkpoint(const std::string& path, const NamedTensors& entries) {
  save_tensors(path, entries);
}

NamedTensors load_training_checkpoint(const std::string& path, c10::Device device) {
  return load_tensors(path, MapLocation::to(device));
}

}  // namespace devcheck::detail
