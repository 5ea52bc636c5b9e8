// Turns scanned pickle values into tensors and storages: what torch.load's
// rebuild functions would build, computed from their arguments without
// calling anything, with every size and offset checked.
#include <fmt/format.h>

#include <optional>

#include "devcheck/format/error.h"
#include "devcheck/format/units.h"
#include "format/allowlist.h"
#include "format/reader.h"

namespace devcheck::detail {
namespace {

constexpr int kMaxDepth = 200;
constexpr std::uint64_t kMaxSteps = 20'000'000;

std::string join_key(const std::string& prefix, const std::string& part) {
  return prefix.empty() ? part : prefix + "." + part;
}

bool mul_ok(std::uint64_t a, std::uint64_t b, std::uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
bool add_ok(std::uint64_t a, std::uint64_t b, std::uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

class Interpreter {
 public:
  Interpreter(ParsedCheckpoint& cp, int index)
      : cp_(cp),
        index_(index),
        src_(cp.pickles[static_cast<std::size_t>(index)]),
        p_(src_.pickle),
        on_path_(p_.nodes.size(), false) {}

  void run(const std::string& prefix) {
    check_globals();
    register_storages();
    if (p_.root != kNoNode) walk(p_.root, prefix, 0);
  }

 private:
  std::string where() const {
    return src_.record.empty() ? fmt::format("'{}'", cp_.path)
                               : fmt::format("'{}' record '{}'", cp_.path, src_.record);
  }
  void finding(const char* code, Severity severity, std::string message) {
    cp_.findings.push_back({code, severity, std::move(message)});
  }
  const Node& node(std::uint32_t i) const { return p_.nodes[i]; }
  bool is_int(std::uint32_t i) const { return i != kNoNode && node(i).kind == NodeKind::kInt; }
  bool is_string(std::uint32_t i) const {
    return i != kNoNode && node(i).kind == NodeKind::kString;
  }
  const std::vector<std::uint32_t>* tuple_items(std::uint32_t i) const {
    if (i == kNoNode) return nullptr;
    const Node& n = node(i);
    return (n.kind == NodeKind::kTuple || n.kind == NodeKind::kList) ? &n.items : nullptr;
  }
  bool int_list(std::uint32_t i, std::vector<std::int64_t>* out, int depth = 0) const {
    const auto* items = tuple_items(i);
    if (items == nullptr) {
      // torch.Size(...) via REDUCE: take its single tuple argument.
      if (depth == 0 && i != kNoNode && node(i).kind == NodeKind::kCall &&
          node(i).args != kNoNode) {
        const auto* args = tuple_items(node(i).args);
        return args != nullptr && args->size() == 1 && int_list((*args)[0], out, depth + 1);
      }
      return false;
    }
    out->clear();
    for (const std::uint32_t v : *items) {
      if (!is_int(v)) return false;
      out->push_back(node(v).integer);
    }
    return true;
  }
  std::string global_name(std::uint32_t i) const {
    if (i == kNoNode || node(i).kind != NodeKind::kGlobal) return "";
    return node(i).text;
  }

  void check_globals() {
    const bool ts = cp_.format == Format::kTorchScript;
    for (const auto& g : p_.globals) {
      if (is_allowed_global(g.module, g.name, ts)) continue;
      finding("unsafe-global", Severity::kError,
              fmt::format("{} names the global {}.{} (byte {}), which torch.load(weights_only="
                          "True) refuses: loading it with pickle would import and may run it. "
                          "devcheck never runs it. Fix: do not load this file with torch.load "
                          "unless you trust its source; save tensors only "
                          "(torch.save(model.state_dict()))",
                          where(), g.module, g.name, g.offset));
    }
  }

  void register_storages() {
    auto& map = cp_.pid_storage[static_cast<std::size_t>(index_)];
    map.assign(p_.persistent_ids.size(), -1);
    std::unordered_map<std::string, int> by_record;
    for (std::size_t s = 0; s < cp_.storages.size(); ++s) {
      if (cp_.sources[s].pickle == index_) by_record[cp_.storages[s].key] = static_cast<int>(s);
    }
    for (std::size_t i = 0; i < p_.persistent_ids.size(); ++i) {
      const PersistentId& pid = p_.persistent_ids[i];
      const auto* items = tuple_items(pid.tuple);
      if (items == nullptr || items->size() < 5 || !is_string((*items)[0]) ||
          node((*items)[0]).text != "storage" || !is_string((*items)[2]) ||
          !is_string((*items)[3]) || !is_int((*items)[4]) || node((*items)[4]).integer < 0) {
        finding("bad-persistent-id", Severity::kError,
                fmt::format("{} has a persistent id at byte {} that is not ('storage', type, "
                            "key, location, numel); torch.load would fail on it",
                            where(), pid.offset));
        continue;
      }
      const std::string type_global = global_name((*items)[1]);
      const std::string type_name = type_global.substr(type_global.rfind('.') + 1);
      StorageEntry entry;
      entry.key = node((*items)[2]).text;
      entry.location = node((*items)[3]).text;
      entry.storage_type = type_name;
      entry.numel = static_cast<std::uint64_t>(node((*items)[4]).integer);
      StorageSource source;
      source.pickle = index_;
      if (!storage_type_dtype(type_name, &source.dtype, &source.element_size)) {
        finding("bad-persistent-id", Severity::kError,
                fmt::format("{} saves storage '{}' with an unknown storage type '{}'", where(),
                            entry.key, type_global));
        continue;
      }
      if (!mul_ok(entry.numel, static_cast<std::uint64_t>(source.element_size), &entry.nbytes) ||
          entry.nbytes > (std::uint64_t{1} << 62)) {
        finding("size-overflow", Severity::kError,
                fmt::format("{} declares storage '{}' with {} elements of {} bytes: the size "
                            "overflows",
                            where(), entry.key, entry.numel, source.element_size));
        continue;
      }
      const auto found = by_record.find(entry.key);
      if (found != by_record.end()) {
        const StorageEntry& prev = cp_.storages[static_cast<std::size_t>(found->second)];
        if (prev.location != entry.location || prev.nbytes != entry.nbytes ||
            prev.storage_type != entry.storage_type) {
          finding("inconsistent-storage", Severity::kError,
                  fmt::format("{} describes storage '{}' twice, differently ({} {} on {} vs {} "
                              "{} on {})",
                              where(), entry.key, prev.numel, prev.storage_type, prev.location,
                              entry.numel, entry.storage_type, entry.location));
        }
        map[i] = found->second;
        continue;
      }
      if (!src_.tensor_dir.empty()) entry.record = src_.tensor_dir + entry.key;
      map[i] = static_cast<int>(cp_.storages.size());
      by_record[entry.key] = map[i];
      cp_.storages.push_back(std::move(entry));
      cp_.sources.push_back(std::move(source));
    }
  }

  void walk(std::uint32_t i, const std::string& key, int depth) {
    if (depth > kMaxDepth) {
      throw format::UnsafeContentError(fmt::format(
          "[devcheck] refusing {}: values nest deeper than {} levels at '{}'; a checkpoint never "
          "does (a crafted file can exhaust the stack of a loader)",
          where(), kMaxDepth, key));
    }
    if (++steps_ > kMaxSteps) {
      throw format::UnsafeContentError(fmt::format(
          "[devcheck] refusing {}: its values reference each other more than {} times (a "
          "crafted file can make a loader work exponentially)",
          where(), kMaxSteps));
    }
    if (on_path_[i]) return;  // a cycle: already being walked
    const Node& n = node(i);
    on_path_[i] = true;
    switch (n.kind) {
      case NodeKind::kDict:
        walk_pairs(n, key, depth);
        break;
      case NodeKind::kList:
      case NodeKind::kTuple:
      case NodeKind::kSet:
        for (std::size_t k = 0; k < n.items.size(); ++k) {
          walk(n.items[k], join_key(key, std::to_string(k)), depth + 1);
        }
        break;
      case NodeKind::kCall:
        walk_call(i, key, depth);
        break;
      default:
        break;
    }
    on_path_[i] = false;
  }

  void walk_pairs(const Node& n, const std::string& key, int depth) {
    for (const auto& [k, v] : n.pairs) walk(v, join_key(key, key_text(k)), depth + 1);
  }

  std::string key_text(std::uint32_t k) const {
    const Node& n = node(k);
    switch (n.kind) {
      case NodeKind::kString:
      case NodeKind::kBytes:
        return n.text;
      case NodeKind::kInt:
        return std::to_string(n.integer);
      case NodeKind::kBool:
        return n.boolean ? "True" : "False";
      case NodeKind::kNone:
        return "None";
      case NodeKind::kFloat:
        return fmt::format("{}", n.real);
      default:
        return "?";
    }
  }

  void walk_call(std::uint32_t i, const std::string& key, int depth) {
    const Node& n = node(i);
    const std::string fn = global_name(n.callable);
    const auto* args = tuple_items(n.args);
    if (fn == "torch._utils._rebuild_tensor_v2" || fn == "torch._utils._rebuild_tensor_v3" ||
        fn == "torch._utils._rebuild_tensor" || fn == "torch._utils._rebuild_qtensor") {
      add_tensor(fn, args, key, /*parameter=*/false, /*requires_grad=*/std::nullopt);
      return;
    }
    if (fn == "torch._utils._rebuild_meta_tensor_no_storage") {
      add_meta_tensor(args, key);
      return;
    }
    if ((fn == "torch._utils._rebuild_parameter" ||
         fn == "torch._utils._rebuild_parameter_with_state") &&
        args != nullptr && args->size() >= 2) {
      const Node& data = node((*args)[0]);
      const std::optional<bool> requires_grad = node((*args)[1]).kind == NodeKind::kBool
                                                    ? std::optional<bool>(node((*args)[1]).boolean)
                                                    : std::nullopt;
      if (data.kind == NodeKind::kCall) {
        add_tensor(global_name(data.callable), tuple_items(data.args), key, true, requires_grad);
      }
      return;
    }
    if (fn == "torch._tensor._rebuild_from_type_v2" && args != nullptr && args->size() >= 3) {
      const std::string inner = global_name((*args)[0]);
      if (inner.rfind("torch._utils._rebuild_tensor", 0) == 0) {
        add_tensor(inner, tuple_items((*args)[2]), key, false, std::nullopt);
        return;
      }
    }
    if (fn.rfind("torch._utils._rebuild_", 0) == 0 ||
        fn == "torch._utils._rebuild_device_tensor_from_numpy") {
      finding("unsupported-tensor", Severity::kWarning,
              fmt::format("{}: '{}' is rebuilt by {}, which devcheck does not read (sparse, "
                          "nested or subclass tensor); it is kept as is by remap but not listed "
                          "or loaded",
                          where(), key, fn));
      return;
    }
    // Containers built by a call (OrderedDict, TorchScript objects and typed lists):
    // their items, then their state. Nothing is called.
    if (fn.rfind("torch.jit._pickle.", 0) == 0 && args != nullptr && !args->empty()) {
      walk((*args)[0], key, depth + 1);
      return;
    }
    walk_pairs(n, key, depth);
    for (std::size_t k = 0; k < n.items.size(); ++k) {
      walk(n.items[k], join_key(key, std::to_string(k)), depth + 1);
    }
    if (n.state != kNoNode) {
      const Node& state = node(n.state);
      if (state.kind == NodeKind::kDict) {
        for (const auto& [k, v] : state.pairs) {
          const std::string name = key_text(k);
          if (name == "_metadata" || name == "training") continue;
          walk(v, join_key(key, name), depth + 1);
        }
      } else {
        walk(n.state, key, depth + 1);
      }
    }
  }

  void add_meta_tensor(const std::vector<std::uint32_t>* args, const std::string& key) {
    TensorEntry t;
    t.key = key;
    t.device = "meta";
    if (args == nullptr || args->size() < 3 ||
        !dtype_from_global(node((*args)[0]).name(), &t.dtype, &t.element_size) ||
        !int_list((*args)[1], &t.shape) || !int_list((*args)[2], &t.stride)) {
      bad_tensor(key, "its meta-tensor arguments are malformed");
      return;
    }
    cp_.entries.push_back(std::move(t));
    cp_.entry_storage.push_back(-1);
  }

  void bad_tensor(const std::string& key, const std::string& why) {
    finding("bad-tensor", Severity::kError,
            fmt::format("{}: tensor '{}' cannot be rebuilt: {}; torch.load would fail or read "
                        "out of bounds",
                        where(), key, why));
  }

  void add_tensor(const std::string& fn, const std::vector<std::uint32_t>* args,
                  const std::string& key, bool parameter, std::optional<bool> requires_grad) {
    const bool v1 = fn == "torch._utils._rebuild_tensor";
    const bool v3 = fn == "torch._utils._rebuild_tensor_v3";
    const bool q = fn == "torch._utils._rebuild_qtensor";
    const std::size_t need = v1 ? 4 : v3 ? 7 : 5;
    if (fn.rfind("torch._utils._rebuild_tensor", 0) != 0 && !q) {
      bad_tensor(key, fmt::format("it is rebuilt by {}", fn.empty() ? "a non-global" : fn));
      return;
    }
    if (args == nullptr || args->size() < need) {
      bad_tensor(key, fmt::format("{} gets too few arguments", fn));
      return;
    }
    const Node& storage = node((*args)[0]);
    if (storage.kind != NodeKind::kPersistent) {
      bad_tensor(key, "its storage is not a persistent storage reference");
      return;
    }
    const int s = cp_.pid_storage[static_cast<std::size_t>(index_)]
                                 [static_cast<std::size_t>(storage.persistent)];
    if (s < 0) return;  // already reported as a bad persistent id
    const StorageEntry& st = cp_.storages[static_cast<std::size_t>(s)];
    const StorageSource& src = cp_.sources[static_cast<std::size_t>(s)];
    TensorEntry t;
    t.key = key;
    t.parameter = parameter;
    t.storage = st.key;
    t.device = st.location;
    t.dtype = src.dtype;
    t.element_size = src.element_size;
    if (!is_int((*args)[1]) || !int_list((*args)[2], &t.shape) ||
        !int_list((*args)[3], &t.stride) || t.shape.size() != t.stride.size()) {
      bad_tensor(key, "its offset, sizes or strides are malformed");
      return;
    }
    t.storage_offset = node((*args)[1]).integer;
    const std::size_t grad_at = q ? 5 : 4;
    if (!v1 && args->size() > grad_at && node((*args)[grad_at]).kind == NodeKind::kBool) {
      t.requires_grad = node((*args)[grad_at]).boolean;
    }
    if (requires_grad) t.requires_grad = *requires_grad;
    if (v3 && !dtype_from_global(node((*args)[6]).name(), &t.dtype, &t.element_size)) {
      bad_tensor(key, "its dtype is not a torch dtype");
      return;
    }
    std::string why;
    if (!view_fits(t, st.nbytes, &why)) {
      finding("view-out-of-bounds", Severity::kError,
              fmt::format("{}: tensor '{}' ({} {}, offset {}, strides {}) reaches past its "
                          "storage '{}' ({} bytes): {}. Loading it would read memory it does not "
                          "own. Fix: re-save the tensor from a trusted copy",
                          where(), key, t.dtype, format::shape_text(t.shape), t.storage_offset,
                          format::shape_text(t.stride), st.key, st.nbytes, why));
      return;
    }
    cp_.entries.push_back(std::move(t));
    cp_.entry_storage.push_back(s);
  }

  static bool view_fits(TensorEntry& t, std::uint64_t storage_nbytes, std::string* why) {
    if (t.storage_offset < 0) return *why = "negative offset", false;
    std::uint64_t numel = 1;
    std::uint64_t last = static_cast<std::uint64_t>(t.storage_offset);
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
      if (t.shape[d] < 0 || t.stride[d] < 0) return *why = "negative size or stride", false;
      if (!mul_ok(numel, static_cast<std::uint64_t>(t.shape[d]), &numel)) {
        return *why = "element count overflows", false;
      }
    }
    const auto elsize = static_cast<std::uint64_t>(t.element_size);
    if (!mul_ok(numel, elsize, &t.nbytes)) return *why = "byte count overflows", false;
    std::uint64_t end = 0;
    if (numel == 0) {
      if (!mul_ok(last, elsize, &end) || end > storage_nbytes) {
        return *why = "offset past the end", false;
      }
      return true;
    }
    for (std::size_t d = 0; d < t.shape.size(); ++d) {
      std::uint64_t span = 0;
      if (!mul_ok(static_cast<std::uint64_t>(t.shape[d] - 1),
                  static_cast<std::uint64_t>(t.stride[d]), &span) ||
          !add_ok(last, span, &last)) {
        return *why = "extent overflows", false;
      }
    }
    if (!add_ok(last, 1, &end) || !mul_ok(end, elsize, &end) || end > storage_nbytes) {
      *why = fmt::format("it needs {} bytes", end);
      return false;
    }
    return true;
  }

  ParsedCheckpoint& cp_;
  int index_;
  const PickleSource& src_;
  const Pickle& p_;
  std::vector<bool> on_path_;
  std::uint64_t steps_ = 0;
};

}  // namespace

bool storage_type_dtype(std::string_view storage_type, std::string* dtype,
                        std::int64_t* element_size) {
  const format::DtypeInfo* d = format::find_dtype_by_storage_type(storage_type);
  if (d == nullptr) return false;
  *dtype = d->name;
  *element_size = d->element_size;
  return true;
}

bool dtype_from_global(std::string_view name, std::string* dtype, std::int64_t* element_size) {
  const format::DtypeInfo* d = format::find_dtype(name);
  if (d == nullptr) return false;
  *dtype = d->name;
  *element_size = d->element_size;
  return true;
}

void interpret_pickle(ParsedCheckpoint& cp, int pickle, const std::string& key_prefix) {
  if (cp.pid_storage.size() <= static_cast<std::size_t>(pickle)) {
    cp.pid_storage.resize(static_cast<std::size_t>(pickle) + 1);
  }
  Interpreter(cp, pickle).run(key_prefix);
}

}  // namespace devcheck::detail
