#pragma once
// How much of the calling thread's stack is left. The device flow recurses
// with the syntax tree (an expression inside an expression) and with the
// calls between a file's functions (a function's result is its body run),
// and a file can be deeper than any stack: two thousand chained `.cuda()`,
// a sum of five thousand terms, a chain of two thousand functions each
// calling the next (valid Python, which CPython compiles). Where the stack
// runs short, the flow stops following (the value is unknown there), as it
// does for what it cannot see, rather than overflow it.

#include <cstddef>

namespace devcheck::lint::detail {

// Bytes a guard keeps free below itself: enough for one step of the flow
// between two guards (a few frames, larger under the sanitizers) and for
// what the parser and the allocator call under it.
inline constexpr std::size_t kStackMargin = std::size_t{512} << 10;

// Whether fewer than kStackMargin bytes (or a quarter of a smaller stack) of
// this thread's stack remain below the caller's frame. The thread's stack bounds are read once per
// thread (pthread_getattr_np); where they cannot be read, the first call's frame counts as the top
// of a stack of kFallbackStack bytes.
bool stack_nearly_exhausted();

inline constexpr std::size_t kFallbackStack = std::size_t{1} << 20;

}  // namespace devcheck::lint::detail
