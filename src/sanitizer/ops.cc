#include "sanitizer/ops.h"

#include <array>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

namespace devcheck::sanitizer {
namespace {

struct Named {
  const char* name;
  OpKind kind;
  const char* host_arguments = nullptr;
};

// Names as the op schema gives them (no overload name).
constexpr Named kSpecialOps[] = {
    // Factories: a new tensor whose device the caller chose (or forgot to).
    {"aten::empty", OpKind::kFactory},
    {"aten::empty_strided", OpKind::kFactory},
    {"aten::empty_like", OpKind::kFactory},
    {"aten::zeros", OpKind::kFactory},
    {"aten::zeros_like", OpKind::kFactory},
    {"aten::ones", OpKind::kFactory},
    {"aten::ones_like", OpKind::kFactory},
    {"aten::full", OpKind::kFactory},
    {"aten::full_like", OpKind::kFactory},
    {"aten::rand", OpKind::kFactory},
    {"aten::rand_like", OpKind::kFactory},
    {"aten::randn", OpKind::kFactory},
    {"aten::randn_like", OpKind::kFactory},
    {"aten::randint", OpKind::kFactory},
    {"aten::randint_like", OpKind::kFactory},
    {"aten::randperm", OpKind::kFactory},
    {"aten::arange", OpKind::kFactory},
    {"aten::linspace", OpKind::kFactory},
    {"aten::logspace", OpKind::kFactory},
    {"aten::eye", OpKind::kFactory},
    {"aten::scalar_tensor", OpKind::kFactory},
    {"aten::from_file", OpKind::kFactory},
    {"aten::new_empty", OpKind::kFactory},
    {"aten::new_empty_strided", OpKind::kFactory},
    {"aten::new_zeros", OpKind::kFactory},
    {"aten::new_ones", OpKind::kFactory},
    {"aten::new_full", OpKind::kFactory},
    {"aten::clone", OpKind::kFactory},
    // Python's torch.tensor() builds its data with the watch key excluded
    // (LibTorch's tensor_new.cpp, as it does for functorch), then hands the
    // tensor to the program through lift_fresh: its origin is made there.
    {"aten::lift_fresh", OpKind::kFactory},
    {"aten::lift", OpKind::kFactory},
    // Transfers: the result lives where the caller asked.
    {"aten::to", OpKind::kTransfer},
    {"aten::_to_copy", OpKind::kTransfer},
    {"aten::cpu", OpKind::kTransfer},
    {"aten::cuda", OpKind::kTransfer},
    {"aten::_copy_from", OpKind::kTransfer},
    {"aten::_copy_from_and_resize", OpKind::kTransfer},
    {"aten::copy_", OpKind::kCopy},
    {"aten::pin_memory", OpKind::kPin},
    {"aten::_pin_memory", OpKind::kCrossDevice},
    {"aten::is_pinned", OpKind::kCrossDevice},
    // Read a device value on the host: the host waits for the device.
    {"aten::item", OpKind::kSync},
    {"aten::_local_scalar_dense", OpKind::kSync},
    {"aten::is_nonzero", OpKind::kSync},
    {"aten::equal", OpKind::kSync},
    {"aten::allclose", OpKind::kSync},
    // Take some arguments on the host by design: CPU indices on a CUDA
    // tensor; a packed sequence's lengths and batch sizes, which PyTorch
    // requires on the CPU. Every other argument is checked.
    {"aten::index", OpKind::kHostArguments, "indices"},
    {"aten::index_put_", OpKind::kHostArguments, "indices"},
    {"aten::index_put", OpKind::kHostArguments, "indices"},
    {"aten::_index_put_impl_", OpKind::kHostArguments, "indices"},
    {"aten::_pack_padded_sequence", OpKind::kHostArguments, "lengths"},
    {"aten::_pack_padded_sequence_backward", OpKind::kHostArguments, "batch_sizes"},
    {"aten::_pad_packed_sequence", OpKind::kHostArguments, "batch_sizes"},
    {"aten::lstm", OpKind::kHostArguments, "batch_sizes"},
    {"aten::gru", OpKind::kHostArguments, "batch_sizes"},
    {"aten::rnn_tanh", OpKind::kHostArguments, "batch_sizes"},
    {"aten::rnn_relu", OpKind::kHostArguments, "batch_sizes"},
    {"aten::ctc_loss", OpKind::kHostArguments, "input_lengths,target_lengths"},
    // Take tensors on several devices by design.
    {"aten::set_data", OpKind::kCrossDevice},
    {"aten::_has_compatible_shallow_copy_type", OpKind::kCrossDevice},
    {"aten::_has_same_storage_numel", OpKind::kCrossDevice},
    {"aten::is_same_size", OpKind::kCrossDevice},
    {"aten::set_", OpKind::kCrossDevice},
    {"aten::lift_fresh", OpKind::kCrossDevice},
    {"aten::lift", OpKind::kCrossDevice},
    {"aten::_amp_foreach_non_finite_check_and_unscale_", OpKind::kCrossDevice},
};

constexpr std::uint64_t hash_name(const char* s) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (; *s != '\0'; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ULL;
  return h;
}

constexpr std::size_t kSlots = 256;  // power of two, > 4x the entries

struct Table {
  std::array<const Named*, kSlots> slots{};
  Table() {
    for (const Named& op : kSpecialOps) {
      std::size_t i = hash_name(op.name) & (kSlots - 1);
      while (slots[i] != nullptr) i = (i + 1) & (kSlots - 1);
      slots[i] = &op;
    }
  }
};

// Built once, read-only afterwards.
const Table& table() {
  static const Table t;
  return t;
}

}  // namespace

OpInfo classify_op(const char* name) {
  if (name == nullptr || std::strncmp(name, "aten::", 6) != 0) return {};
  const Table& t = table();
  std::size_t i = hash_name(name) & (kSlots - 1);
  for (; t.slots[i] != nullptr; i = (i + 1) & (kSlots - 1)) {
    if (std::strcmp(t.slots[i]->name, name) == 0) {
      return {t.slots[i]->kind, t.slots[i]->name, t.slots[i]->host_arguments};
    }
  }
  return {};
}

bool host_argument(const OpInfo& info, std::string_view name) {
  if (info.host_arguments == nullptr) return false;
  std::string_view list(info.host_arguments);
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

const char* interned(const char* name) {
  static auto* mutex = new std::mutex;
  static auto* names = new std::unordered_set<std::string>;
  std::lock_guard<std::mutex> lock(*mutex);
  return names->insert(name).first->c_str();
}

}  // namespace devcheck::sanitizer
