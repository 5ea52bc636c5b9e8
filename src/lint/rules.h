#pragma once
// The rules: each reads a parsed Source and reports through a Sink.
// Internal; docs/lint.md describes every rule with a bad and a good example.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "devcheck/lint.h"
#include "syntax.h"

namespace devcheck::lint::detail {

// Collects one file's findings.
class Sink {
 public:
  explicit Sink(std::string path) : path_(std::move(path)) {}
  void report(TSNode node, std::string_view rule, std::string message,
              std::optional<Fix> fix = std::nullopt);
  std::vector<Finding>& findings() { return findings_; }

 private:
  std::string path_;
  std::vector<Finding> findings_;
};

// Rules on what is called, one call at a time (rules_calls.cc):
// DC105 DC108 DC109 DC110 DC115 DC119.
void check_calls(const Source& source, Sink& sink);
// Rules on modules and tensors in their scopes (rules_scopes.cc):
// DC101 DC102 DC104 DC106 DC111 DC113 DC116 DC117.
void check_scopes(const Source& source, Sink& sink);
// Rules on where code runs (rules_places.cc): DC107 DC112 DC114 DC118.
void check_places(const Source& source, Sink& sink);

// Shared judgements.
// A string literal's contents, or nullopt for anything else (f-strings too).
std::optional<std::string> string_value(const Source& source, TSNode node);
// `torch.zeros`-style factories that take `device=`.
bool is_factory(std::string_view qualified);
// Whether the value certainly makes a tensor (a factory, from_numpy, ...).
bool makes_tensor(const Source& source, TSNode value);
// Whether a name or `self.x` is bound to an nn.Module in `scope`.
bool is_module_name(const Source& source, TSNode object, int scope);
// The value last assigned to a name or `self.x` (any method of the class),
// seen from `scope`; a null node when unknown.
TSNode value_of_object(const Source& source, TSNode object, int scope);
// Whether a `.to(x)`/`.cuda()` call moves to a device other than the CPU, as
// far as one can tell (a `*device*` name not bound to "cpu", `t.device`, ...).
bool moves_to_device(const Source& source, TSNode call, int scope);
// Whether `node` is a tensor (or module) on a device other than the CPU:
// moved there, made there, or a name whose value was (rules_scopes.cc).
bool on_device(const Source& source, TSNode node, int scope, int depth = 0);

// Whether `text` holds any of `words` (lowercase), in any case.
bool names_any(std::string_view text, std::initializer_list<std::string_view> words);
// Whether text names CUDA or a GPU ("cuda", "gpu", any case): a test, a
// decorator or a pytest mark that does gates what it governs on one.
inline bool names_cuda_or_gpu(std::string_view text) { return names_any(text, {"cuda", "gpu"}); }

// DC103: arrays from NumPy that meet device tensors unmoved (rules_numpy.cc).
void check_numpy_arrays(const Source& source, Sink& sink);

}  // namespace devcheck::lint::detail
