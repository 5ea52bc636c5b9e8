// save_tensors / save_state_dict: torch.save's zip format, written by hand
// (an OrderedDict pickle of _rebuild_tensor_v2 calls plus one record per storage).
#include <ATen/ops/empty.h>
#include <fmt/format.h>
#include <torch/nn/module.h>

#include <bitset>
#include <map>
#include <set>
#include <unordered_map>

#include "checkpoint/format_bridge.h"
#include "detail/names.h"
#include "devcheck/checkpoint.h"
#include "devcheck/error.h"
#include "devcheck/format/units.h"
#include "format/allowlist.h"
#include "format/output.h"
#include "format/pickle_edit.h"
#include "format/pickle_scan.h"
#include "format/zip_writer.h"

namespace devcheck {
namespace {

// The storage class torch.save names for `type` ("FloatStorage"), or null.
const char* storage_type_name(c10::ScalarType type) {
  const format::DtypeInfo* d = format::find_dtype(detail::dtype_name(type));
  return d != nullptr && *d->storage_type != '\0' ? d->storage_type : nullptr;
}

// Emits only ops torch.load(weights_only=True) accepts in 1.13 and 2.6
// (detail::weights_only_opcode): no floats, no memo, protocol 2.
class PickleWriter {
 public:
  PickleWriter() { out_ = "\x80\x02"; }
  void op(char c) { out_.push_back(c); }
  void global(const char* module, const char* name) {
    out_ += 'c';
    out_ += module;
    out_ += '\n';
    out_ += name;
    out_ += '\n';
  }
  void str(std::string_view s) { out_ += detail::pickle_unicode(s); }
  void integer(std::int64_t v) {
    if (v >= 0 && v < 256) {
      out_ += 'K';
      out_.push_back(static_cast<char>(v));
    } else if (v >= 0 && v < 65536) {
      out_ += 'M';
      out_.push_back(static_cast<char>(v & 0xff));
      out_.push_back(static_cast<char>((v >> 8) & 0xff));
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      out_ += 'J';
      const auto u = static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
      for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    } else {
      out_ += '\x8a';
      out_.push_back(8);
      const auto u = static_cast<std::uint64_t>(v);
      for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
    }
  }
  void int_tuple(c10::IntArrayRef values) {
    op('(');
    for (const auto v : values) integer(v);
    op('t');
  }
  std::string take() {
    out_ += '.';
    return std::move(out_);
  }

 private:
  std::string out_;
};

struct SavedStorage {
  at::Tensor flat;  // the whole storage as a 1-d tensor of its dtype
  std::string key;
};

}  // namespace

void save_tensors(const std::string& path,
                  const std::vector<std::pair<std::string, at::Tensor>>& tensors) {
  std::set<std::string> keys;
  std::unordered_map<const c10::StorageImpl*, std::size_t> index;
  std::vector<SavedStorage> storages;
  PickleWriter p;
  p.global("collections", "OrderedDict");
  p.op(')');
  p.op('R');
  p.op('(');
  for (const auto& [key, tensor] : tensors) {
    if (!keys.insert(key).second) {
      throw InvalidArgumentError(fmt::format(
          "[devcheck] save_tensors('{}'): key '{}' appears twice; keys of a state dict are "
          "unique",
          path, key));
    }
    const char* type = tensor.defined() ? storage_type_name(tensor.scalar_type()) : nullptr;
    if (type == nullptr || tensor.layout() != c10::kStrided || tensor.is_quantized() ||
        tensor.device().type() == c10::DeviceType::Meta) {
      throw InvalidArgumentError(fmt::format(
          "[devcheck] save_tensors('{}'): tensor '{}' ({}) cannot be saved: expected a defined, "
          "dense tensor with data, of a dtype torch.save names",
          path, key,
          tensor.defined()
              ? fmt::format("{} on {}", c10::toString(tensor.scalar_type()), tensor.device().str())
              : "undefined"));
    }
    const c10::StorageImpl* impl = tensor.storage().unsafeGetStorageImpl();
    auto it = index.find(impl);
    const std::int64_t elsize = static_cast<std::int64_t>(tensor.element_size());
    if (it == index.end()) {
      const auto nbytes = static_cast<std::int64_t>(tensor.storage().nbytes());
      at::Tensor flat = at::empty({0}, tensor.options().requires_grad(false));
      flat.set_(tensor.storage(), 0, {nbytes / elsize}, {1});
      it = index.emplace(impl, storages.size()).first;
      storages.push_back({flat.cpu(), std::to_string(storages.size())});
    } else if (storages[it->second].flat.scalar_type() != tensor.scalar_type()) {
      throw InvalidArgumentError(fmt::format(
          "[devcheck] save_tensors('{}'): tensor '{}' views the same memory as another tensor "
          "with a different dtype; torch.save refuses that too. Fix: .clone() one of them",
          path, key));
    }
    const SavedStorage& st = storages[it->second];
    p.str(key);
    p.global("torch._utils", "_rebuild_tensor_v2");
    p.op('(');
    p.op('(');
    p.str("storage");
    p.global("torch", type);
    p.str(st.key);
    p.str("cpu");
    p.integer(st.flat.numel());
    p.op('t');
    p.op('Q');
    p.integer(tensor.storage_offset());
    p.int_tuple(tensor.sizes());
    p.int_tuple(tensor.strides());
    p.op('\x89');  // requires_grad False: a state dict holds detached tensors
    p.global("collections", "OrderedDict");
    p.op(')');
    p.op('R');
    p.op('t');
    p.op('R');
  }
  p.op('u');
  const std::string pickle = p.take();
  const std::bitset<256> ops = detail::scan_pickle(pickle, "save_tensors' pickle").opcodes;
  for (unsigned op = 0; op < ops.size(); ++op) {
    TORCH_INTERNAL_ASSERT(
        !ops.test(op) || detail::weights_only_opcode(static_cast<unsigned char>(op)),
        "save_tensors: wrote an op torch.load(weights_only=True) refuses");
  }

  detail::with_devcheck_errors([&] {
    detail::AtomicOutput file(path, /*overwrite=*/true);
    detail::ZipWriter zip(file.fd(), path);
    zip.add("archive/data.pkl", pickle);
    zip.add("archive/byteorder", std::string_view("little"));
    for (const auto& st : storages) {
      const at::Tensor data = st.flat.contiguous();
      zip.add("archive/data/" + st.key, data.data_ptr(),
              static_cast<std::uint64_t>(data.numel()) * data.element_size());
    }
    zip.add("archive/version", std::string_view("3\n"));
    zip.finish();
    file.commit();
  });
}

void save_state_dict(const torch::nn::Module& module, const std::string& path) {
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  // Python's order: per module (depth first), its parameters, then its buffers.
  // named_modules(include_self=true) needs a shared_ptr-held module, so self is separate.
  auto add_own = [&](const torch::nn::Module& m, const std::string& prefix) {
    for (const auto& p : m.named_parameters(/*recurse=*/false)) {
      if (p.value().defined()) tensors.emplace_back(prefix + p.key(), p.value().detach());
    }
    for (const auto& b : m.named_buffers(/*recurse=*/false)) {
      if (b.value().defined()) tensors.emplace_back(prefix + b.key(), b.value().detach());
    }
  };
  add_own(module, "");
  for (const auto& item : module.named_modules("", /*include_self=*/false)) {
    add_own(*item.value(), item.key() + ".");
  }
  save_tensors(path, tensors);
}

}  // namespace devcheck
