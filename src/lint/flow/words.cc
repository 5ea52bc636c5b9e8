// The words the device flow knows torch by (run.h): which functions
// compute on their arguments, which methods give tensors, dtypes, legacy
// constructors.
#include <array>
#include <cctype>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "../common.h"
#include "run.h"

namespace devcheck::lint::detail {

bool is_dtype(const Source& source, TSNode node) {
  static constexpr std::array<std::string_view, 22> kTypes = {
      "float",   "float32",   "float64",    "float16", "bfloat16", "half",  "double", "int",
      "int8",    "int16",     "int32",      "int64",   "long",     "short", "uint8",  "bool",
      "complex", "complex64", "complex128", "cfloat",  "cdouble",  "bits8"};
  if (!is(node, "attribute")) return false;
  const std::string_view last = source.text(field(node, fields().attribute));
  if (last == "dtype") return true;
  return source.qualify(node).rfind("torch.", 0) == 0 && among(last, kTypes);
}

bool computes_on_arguments(std::string_view q) {
  static constexpr std::array<std::string_view, 5> kNamespaces = {
      "torch.nn.functional.", "torch.linalg.", "torch.fft.", "torch.special.", "torch.sparse."};
  for (std::string_view ns : kNamespaces) {
    if (q.rfind(ns, 0) == 0) return true;
  }
  if (q.rfind("torch.", 0) != 0) return false;
  const std::string_view rest = q.substr(6);
  // Saving, loading, devices, sizes, modes, generators: no tensor comes out;
  // nor from torch's state, its types and flags (gives_no_tensor).
  static constexpr std::array<std::string_view, 8> kNot = {
      "save", "load", "device", "Size", "no_grad", "enable_grad", "inference_mode", "Generator"};
  return rest.find('.') == std::string_view::npos && !rest.empty() &&
         std::islower(static_cast<unsigned char>(rest[0])) != 0 && !among(rest, kNot) &&
         !gives_no_tensor(q);
}

bool gives_no_tensor(std::string_view q) {
  if (q.rfind("torch.", 0) != 0) return false;
  const std::string_view rest = q.substr(6);
  static constexpr std::array<std::string_view, 12> kCounts = {"numel",
                                                               "manual_seed",
                                                               "get_default_dtype",
                                                               "get_default_device",
                                                               "get_num_threads",
                                                               "get_num_interop_threads",
                                                               "typename",
                                                               "result_type",
                                                               "promote_types",
                                                               "can_cast",
                                                               "finfo",
                                                               "iinfo"};
  return rest.find('.') == std::string_view::npos &&
         (among(rest, kCounts) || rest.rfind("set_", 0) == 0 || rest.rfind("is_", 0) == 0 ||
          rest.rfind("are_", 0) == 0 || rest.rfind("use_", 0) == 0);
}

std::optional<bool> legacy_type_on_cuda(std::string_view q) {
  static constexpr std::array<std::string_view, 11> kTypes = {
      "FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "ByteTensor", "CharTensor",
      "ShortTensor", "IntTensor",    "LongTensor", "BoolTensor",     "Tensor"};
  if (q.rfind("torch.cuda.", 0) == 0 && among(q.substr(11), kTypes)) return true;
  if (q.rfind("torch.", 0) == 0 && among(q.substr(6), kTypes)) return false;
  return std::nullopt;
}

bool tensor_method(std::string_view m) {
  static constexpr std::array<std::string_view, 64> kMethods = {
      "float",      "double",    "half",
      "bfloat16",   "long",      "int",
      "bool",       "byte",      "short",
      "char",       "clone",     "detach",
      "squeeze",    "unsqueeze", "view",
      "view_as",    "reshape",   "reshape_as",
      "permute",    "transpose", "flatten",
      "contiguous", "expand",    "expand_as",
      "repeat",     "softmax",   "log_softmax",
      "sigmoid",    "tanh",      "relu",
      "exp",        "log",       "abs",
      "sqrt",       "pow",       "matmul",
      "mm",         "bmm",       "masked_fill",
      "tril",       "triu",      "narrow",
      "type",       "type_as",   "chunk",
      "split",      "unbind",    "index_select",
      "gather",     "scatter",   "argmax",
      "argmin",     "cumsum",    "flip",
      "roll",       "clamp",     "t",
      "sum",        "mean",      "max",
      "min",        "norm",      "requires_grad_",
      "to"};
  return among(m, kMethods);
}

void factory_shape(const Source& source, std::string_view q, const std::vector<TSNode>& positional,
                   Value& v) {
  static constexpr std::array<std::string_view, 4> kOneDim = {"torch.arange", "torch.linspace",
                                                              "torch.logspace", "torch.randperm"};
  static constexpr std::array<std::string_view, 5> kSized = {
      "torch.rand", "torch.randn", "torch.zeros", "torch.ones", "torch.empty"};
  if (among(q, kOneDim)) {
    v.one_dim = true;
    return;
  }
  // The sizes: `torch.rand(1, 1)` or `torch.rand((1, 1))`; randint's and
  // full's only as a sequence, randint's last (`torch.randint(lo, hi, (1,))`,
  // `torch.randint(hi, (1,))`), full's first (`torch.full((1,), v)`).
  std::vector<TSNode> sizes;
  if (q == "torch.randint" || q == "torch.full") {
    if (positional.size() < 2) return;
    sizes.push_back(q == "torch.full" ? positional.front() : positional.back());
    if (!is(sizes[0], "tuple") && !is(sizes[0], "list")) return;
  } else if (among(q, kSized) && !positional.empty()) {
    sizes = positional;
  } else {
    return;
  }
  // Only integer literals tell the shape.
  if (sizes.size() == 1 && (is(sizes[0], "tuple") || is(sizes[0], "list"))) {
    const TSNode seq = sizes[0];
    sizes.clear();
    for (uint32_t i = 0, n = ts_node_named_child_count(seq); i < n; ++i) {
      sizes.push_back(ts_node_named_child(seq, i));
    }
    if (sizes.empty()) return;
  }
  bool ones = true;
  for (const TSNode size : sizes) {
    if (!is(size, "integer")) return;
    ones = ones && source.text(size) == "1";
  }
  v.one_element = ones;
  v.one_dim = sizes.size() == 1;
}

void method_shape(std::string_view method, bool no_args, Value& v) {
  static constexpr std::array<std::string_view, 12> kKeepShape = {
      "long", "float", "int",   "double", "half", "bool",
      "abs",  "neg",   "clone", "detach", "sqrt", "exp"};
  if (v.one_element && method == "squeeze" && no_args) v.scalar = true;
  if (!among(method, kKeepShape) || !no_args) {
    v.one_element = false;
    v.one_dim = false;
  }
}

bool non_tensor_method(std::string_view m) {
  static constexpr std::array<std::string_view, 14> kMethods = {
      "item",         "tolist",   "size",       "dim",           "numel", "data_ptr",
      "element_size", "nelement", "get_device", "is_contiguous", "equal", "is_floating_point",
      "storage",      "stride"};
  return among(m, kMethods);
}

bool is_module_class(std::string_view q) {
  if (q.rfind("torch.nn.", 0) != 0 || q.find(".functional") != std::string_view::npos ||
      q.find(".init.") != std::string_view::npos || q.find(".utils.") != std::string_view::npos) {
    return false;
  }
  const std::string_view last = q.substr(q.rfind('.') + 1);
  return !last.empty() && std::isupper(static_cast<unsigned char>(last[0])) != 0 &&
         last != "Parameter" && last != "Module";
}

// A torchvision model's builder: torchvision.models.resnet50(...),
// torchvision.models.detection.fasterrcnn_resnet50_fpn(...), get_model(...);
// not the weights (ResNet50_Weights), nor feature extraction from a model.
bool is_torchvision_model(std::string_view q) {
  constexpr std::string_view kModels = "torchvision.models.";
  if (q.rfind(kModels, 0) != 0) return false;
  std::string_view rest = q.substr(kModels.size());
  const std::size_t dot = rest.find('.');
  if (dot != std::string_view::npos) {
    const std::string_view package = rest.substr(0, dot);
    if (package != "detection" && package != "segmentation" && package != "video" &&
        package != "quantization" && package != "optical_flow") {
      return false;
    }
    rest = rest.substr(dot + 1);
  }
  return !rest.empty() && rest.find('.') == std::string_view::npos &&
         std::islower(static_cast<unsigned char>(rest[0])) != 0 && rest != "get_weight" &&
         rest != "get_model_weights" && rest != "list_models" && rest != "get_model_builder";
}

bool is_pretrained_model(std::string_view q) {
  constexpr std::string_view kPackage = "transformers.";
  constexpr std::string_view kLoad = ".from_pretrained";
  if (q.rfind(kPackage, 0) != 0 || q.size() <= kPackage.size() + kLoad.size() ||
      q.substr(q.size() - kLoad.size()) != kLoad) {
    return false;
  }
  const std::string_view cls = q.substr(kPackage.size(), q.size() - kPackage.size() - kLoad.size());
  return cls.find('.') == std::string_view::npos &&
         (cls.find("Model") != std::string_view::npos || cls.find("For") != std::string_view::npos);
}

bool is_module_own_method(std::string_view method) {
  static constexpr std::array<std::string_view, 3> kOwn = {"load_state_dict", "state_dict",
                                                           "apply"};
  return among(method, kOwn);
}

bool is_wrapper(std::string_view q) {
  return q == "torch.nn.DataParallel" || q == "torch.nn.parallel.DataParallel" ||
         q == "torch.nn.parallel.DistributedDataParallel" ||
         q == "torch.nn.parallel.distributed.DistributedDataParallel";
}

ImageToTensor image_to_tensor(const Source& source, TSNode call, std::string_view q) {
  constexpr std::string_view kTransforms = "torchvision.transforms.";
  if (q.rfind(kTransforms, 0) != 0) return ImageToTensor::kNo;
  std::string_view rest = q.substr(kTransforms.size());
  if (rest == "functional.to_tensor" || rest == "functional.pil_to_tensor") {
    return ImageToTensor::kTensor;
  }
  if (rest.rfind("transforms.", 0) == 0) rest = rest.substr(11);
  if (rest == "ToTensor" || rest == "PILToTensor") return ImageToTensor::kTransform;
  if (rest != "Compose") return ImageToTensor::kNo;
  const std::vector<TSNode> args = source.positional(call);
  if (args.empty() || !is(args[0], "list")) return ImageToTensor::kNo;
  ImageToTensor out = ImageToTensor::kNo;
  for_each_named_child(args[0], [&](TSNode step) {
    if (is(step, "call") &&
        image_to_tensor(source, step, source.qualify(field(step, fields().function))) ==
            ImageToTensor::kTransform) {
      out = ImageToTensor::kTransform;
    }
  });
  return out;
}

bool is_metric_class(std::string_view q) {
  constexpr std::string_view kPackage = "torchmetrics.";
  if (q.rfind(kPackage, 0) != 0 || q.find(".functional") != std::string_view::npos ||
      q.find(".utilities") != std::string_view::npos) {
    return false;
  }
  const std::string_view last = q.substr(q.rfind('.') + 1);
  return !last.empty() && std::isupper(static_cast<unsigned char>(last[0])) != 0;
}

TSNode module_chain_root(const Source& source, TSNode node) {
  static constexpr std::array<std::string_view, 8> kReturnsSelf = {
      "eval", "train", "float", "half", "double", "bfloat16", "requires_grad_", "share_memory"};
  while (is(node, "call") && ts_node_named_child_count(field(node, fields().arguments)) == 0) {
    const TSNode function = field(node, fields().function);
    if (!is(function, "attribute") ||
        !among(source.text(field(function, fields().attribute)), kReturnsSelf)) {
      break;
    }
    node = field(function, fields().object);
  }
  return node;
}

bool reads_as_numpy(std::string_view q) {
  static constexpr std::array<std::string_view, 6> kPackages = {
      "numpy.", "sklearn.", "scipy.", "matplotlib.pyplot.", "pandas.DataFrame", "pandas.Series"};
  for (std::string_view p : kPackages) {
    if (q.rfind(p, 0) == 0) return true;
  }
  return false;
}

TSNode made_module_root(const Source& source, TSNode node) {
  for (;;) {
    node = module_chain_root(source, node);
    const TSNode function = is(node, "call") ? field(node, fields().function) : TSNode{};
    if (!is(function, "attribute")) return node;
    const std::string_view method = source.text(field(function, fields().attribute));
    if (method != "to" && method != "cuda") return node;
    node = field(function, fields().object);
  }
}

}  // namespace devcheck::lint::detail
