#pragma once
// What devcheck lets a checkpoint's pickle say: the opcodes that
// torch.load(weights_only=True) accepts, and the globals it (or, for
// TorchScript archives, torch.jit.load) imports. The scanner records every
// op and global; the reader reports each one outside these lists, and
// devcheck's writers use no op outside them. Pure functions; thread-safe.

#include <string_view>

#include "devcheck/export.h"

namespace devcheck::detail {

// The opcodes torch.load(weights_only=True) accepts in every PyTorch version
// devcheck supports: those of 1.13's torch/_weights_only_unpickler.py, which
// 2.6's accepts too (2.6 adds only BINFLOAT). Everything devcheck writes uses
// no others: no POP, DUP, MEMOIZE, FRAME or SHORT_BINUNICODE.
DEVCHECK_API bool weights_only_opcode(unsigned char op);

// Whether torch.load(weights_only=True) (or, for TorchScript archives,
// torch.jit.load) accepts the global `module.name`.
bool is_allowed_global(std::string_view module, std::string_view name, bool torchscript);

}  // namespace devcheck::detail
