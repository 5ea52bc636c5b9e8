#pragma once
// DC111's judgement of how a module's plain attribute is used: whether a
// read of it can meet a tensor on another device at all, and whether a plain
// list of modules is registered one by one. Internal.

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "../flow/flow.h"
#include "../syntax.h"

namespace devcheck::lint::detail {

// Whether a name that stops at byte `end` of `text` ends there (`.mask`, not
// `.mask_id`).
bool ends_there(std::string_view text, std::size_t end);

// The attribute nodes of the file whose attribute is `attribute` (`.x`, with
// its dot) on any object (`self.x`, `other.x`), in the text's order.
std::vector<TSNode> attribute_nodes(const Source& source, std::string_view attribute);

// The `self.x` nodes (`name`) of the file, reads and sets, in the text's
// order; none (nullopt) where `.x` stands anywhere other than as `self.x`
// (another object's, or in a string or a comment).
std::optional<std::vector<TSNode>> self_attribute_nodes(const Source& source,
                                                        std::string_view name);

// Whether `method` is __init__, or a method of its class that __init__ (or
// such a method) calls (`self._init_buffers()`) and no other code calls
// (not `forward`, another method, nor `model._init_buffers()` on another
// object): what it sets, __init__ sets, and it never runs on a built module.
bool in_init(const Source& source, int method);

// Whether __init__ runs `method`: it is __init__, or a method of its class
// __init__ calls on `self`, whether or not other code calls it too (what it
// sets is set while the module is built, and maybe again later).
bool runs_in_init(const Source& source, int method);

// Whether the read `node` (`self.x`, an attribute) cannot meet a tensor on
// another device: it is filled with a number in place (`.fill_(0.5)`,
// `.zero_()`), only its metadata is read (`.dtype`, `.shape`,
// `.requires_grad`, `.size()`, `.tolist()`, a chain of methods given numbers
// that ends in `.item()`; not `.device`), it is compared with None, it is
// a truth value (`if self.x[i]:`, `if self.x[i] == 1:`), an index into
// another tensor (`y[:, self.x]`: indexing takes host indices on any device),
// or it is read in `get_extra_state` (state to save, not computed with).
bool no_device_use(const Source& source, TSNode node);

// Whether the plain tensor of `set` never meets a tensor where the file
// uses it: every read of `.x` in the file (on any object) is one of
// no_device_use's, and either there is one, or no read at all and a method
// of the class other than __init__ (and its helpers) sets `self.x` again (an
// output kept for the caller: `self.att_mat = att_mat.detach()`).
bool never_used_on_a_device(const Source& source, const AttributeSet& set);

// Whether the plain list `self.x = []` of `set` holds only modules each also
// registered on the module where it is appended: every `self.x.append(m)` of
// the file lies in a block that also calls `self.add_module(name, m)` (or
// `self.add_module(name, self.x[-1])`, `setattr(self, name, m)`), and
// nothing else adds to the list (`extend`, `insert`, `+=`, another set).
// model.to(device) moves them and model.parameters() lists them.
bool modules_registered_one_by_one(const Source& source, const AttributeSet& set);

// Whether the read `node` lies on the `else` way of `... if d is not None
// else ...` (in a tuple there too), `d` a parameter of the function around it
// that every call of the file gives a value other than None (by keyword, by
// position, or as a parameter of the caller its own calls give one; a
// module's `forward` through the attribute of a class of the file that holds
// it, `self.pos_embed(n, device=x.device)`): that way never runs.
bool on_a_way_never_taken(const Source& source, TSNode node);

}  // namespace devcheck::lint::detail
