#pragma once
// DC111's judgement of how a module's plain tensor is read and set
// (plain_tensor_reads.cc). Internal.

#include "../flow/flow.h"
#include "../syntax.h"

namespace devcheck::lint::detail {

// Whether the class moves the plain tensor `self.x` itself wherever its
// methods (other than __init__ and its helpers) use it: model.to(device)
// leaves it behind, and each use takes it where it is needed.
bool moved_at_each_use(const Source& source, const AttributeSet& set);

// Whether every read of the plain tensor of `set` happens while the module
// is built (in __init__, its helpers, or methods only they call), and no
// other code of the file reads it.
bool read_only_while_built(const Source& source, const AttributeSet& set);

// Whether every read of `self.x` in its class follows a set of it on every
// way there (a placeholder never read as it was made).
bool replaced_before_every_read(const Source& source, const AttributeSet& set);

// Whether the plain tensor of `set` is set only on the way of a test of a
// flag of the class that the reads never take (`if self.spinor:`).
bool read_only_on_the_other_way(const Source& source, const AttributeSet& set);

}  // namespace devcheck::lint::detail
