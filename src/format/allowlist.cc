#include "format/allowlist.h"

#include <string>
#include <unordered_set>

#include "devcheck/format/units.h"

namespace devcheck::detail {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

bool weights_only_opcode(unsigned char op) {
  // torch/_weights_only_unpickler.py of PyTorch 1.13.1; 2.6's accepts these and BINFLOAT.
  switch (op) {
    case 0x80:  // PROTO
    case '.':   // STOP
    case 'c':   // GLOBAL (the allowlist is the unpickler's business)
    case 0x81:  // NEWOBJ
    case 'R':   // REDUCE
    case 'b':   // BUILD
    case 'a':   // APPEND
    case 'e':   // APPENDS
    case 's':   // SETITEM
    case 'u':   // SETITEMS
    case '(':   // MARK
    case 't':   // TUPLE
    case 0x85:  // TUPLE1
    case 0x86:  // TUPLE2
    case 0x87:  // TUPLE3
    case 'N':   // NONE
    case 0x89:  // NEWFALSE
    case 0x88:  // NEWTRUE
    case ')':   // EMPTY_TUPLE
    case ']':   // EMPTY_LIST
    case '}':   // EMPTY_DICT
    case 0x8f:  // EMPTY_SET
    case 'J':   // BININT
    case 'K':   // BININT1
    case 'M':   // BININT2
    case 'X':   // BINUNICODE
    case 'U':   // SHORT_BINSTRING
    case 'Q':   // BINPERSID
    case 'h':   // BINGET
    case 'j':   // LONG_BINGET
    case 'q':   // BINPUT
    case 'r':   // LONG_BINPUT
    case 0x8a:  // LONG1
      return true;
    default:
      return false;
  }
}

bool is_allowed_global(std::string_view module, std::string_view name, bool torchscript) {
  // Protocol 2 pickles name Python 2 modules; pickle's fix_imports maps them.
  if (module == "__builtin__") module = "builtins";
  if (module == "copy_reg") module = "copyreg";
  static const std::unordered_set<std::string_view> kExact = {
      "collections.OrderedDict",
      "collections.Counter",
      "torch.nn.parameter.Parameter",
      "torch.serialization._get_layout",
      "torch.Size",
      "torch.Tensor",
      "torch.device",
      "_codecs.encode",
      "builtins.bytearray",
      "builtins.set",
      "builtins.complex",
      "torch._utils._rebuild_parameter",
      "torch._utils._rebuild_parameter_with_state",
      "torch._utils._rebuild_qtensor",
      "torch._utils._rebuild_tensor",
      "torch._utils._rebuild_tensor_v2",
      "torch._utils._rebuild_tensor_v3",
      "torch._utils._rebuild_sparse_tensor",
      "torch._utils._rebuild_meta_tensor_no_storage",
      "torch._utils._rebuild_nested_tensor",
      "torch._utils._rebuild_wrapper_subclass",
      "torch._utils._rebuild_device_tensor_from_numpy",
      "torch._utils._rebuild_device_tensor_from_cpu_tensor",
      "torch._tensor._rebuild_from_type_v2",
      "torch.per_tensor_affine",
      "torch.per_channel_affine",
      "torch.per_tensor_symmetric",
      "torch.per_channel_symmetric",
      "torch.per_channel_affine_float_qparams",
  };
  const std::string full = std::string(module) + "." + std::string(name);
  if (kExact.count(full) != 0) return true;
  if (module == "torch" || module == "torch.storage" || module == "torch.cuda") {
    if (ends_with(name, "Storage") && format::find_dtype_by_storage_type(name) != nullptr)
      return true;
    if (name == "TypedStorage") return true;
  }
  if ((module == "torch" || module == "torch.cuda") && ends_with(name, "Tensor") &&
      name.size() > 6) {
    return true;  // legacy tensor classes: torch.FloatTensor, torch.cuda.HalfTensor
  }
  if (module == "torch" && format::find_dtype(name) != nullptr) return true;
  if (torchscript) {
    static const std::unordered_set<std::string_view> kScript = {
        "build_intlist",     "build_tensorlist", "build_doublelist",     "build_boollist",
        "build_genericlist", "restore_type_tag", "build_tensor_from_id",
    };
    if (module == "torch.jit._pickle" && kScript.count(name) != 0) return true;
    // Classes compiled from the archive's own code/ (never Python imports).
    if (module == "__torch__" || module.rfind("__torch__.", 0) == 0) return true;
  }
  return false;
}

}  // namespace devcheck::detail
