#pragma once
// Copies devcheck itself stages on purpose (the prefetcher's whole-batch
// copies on its worker thread) carry a label the sanitizer reads: they are
// counted in its ledger under that label, and never make a "many small
// copies" finding, which is about a program's own per-sample copy loops.

#include "devcheck/export.h"

namespace devcheck::detail {

// While alive, copies this thread makes are staged by `who` (a string literal,
// e.g. "devcheck::DevicePrefetcher"). Not copyable; nests (the innermost wins).
class DEVCHECK_API StagingScope {
 public:
  explicit StagingScope(const char* who) noexcept;
  ~StagingScope();
  StagingScope(const StagingScope&) = delete;
  StagingScope& operator=(const StagingScope&) = delete;

 private:
  const char* previous_;
};

// The label of the innermost StagingScope on this thread; nullptr outside one.
DEVCHECK_API const char* staging_label() noexcept;

}  // namespace devcheck::detail
