#pragma once
// Judgements several rules and the device flow share. Internal.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "syntax.h"

namespace devcheck::lint::detail {

// A string literal's contents, or nullopt for anything else (f-strings too).
std::optional<std::string> string_value(const Source& source, TSNode node);
// Whether `s` names a CUDA device: "cuda" or "cuda:N".
bool is_cuda_string(const std::optional<std::string>& s);
// Whether `s` names the host: "cpu" or "cpu:N" (torch takes `cpu:0` for the
// CPU; there is one).
bool is_cpu_string(const std::optional<std::string>& s);
// `torch.zeros`-style factories that take `device=`.
bool is_factory(std::string_view qualified);
// The value last assigned to a name or `self.x` (any method of the class),
// seen from `scope`; a null node when unknown.
TSNode value_of_object(const Source& source, TSNode object, int scope);
// Whether `name` is one of the function's parameters; `default_value`, if
// given, is set to its default (null without one).
bool parameter_of(const Source& source, std::string_view name, int function,
                  TSNode* default_value = nullptr);

// Whether `text` holds any of `words` (lowercase), in any case.
bool names_any(std::string_view text, std::initializer_list<std::string_view> words);
// Whether text names CUDA or a GPU ("cuda", "gpu", any case): a test, a
// decorator or a pytest mark that does gates what it governs on one.
inline bool names_cuda_or_gpu(std::string_view text) { return names_any(text, {"cuda", "gpu"}); }
// Whether a decorator of `definition` (a decorated_definition) other than
// `except` names CUDA or a GPU (`@pytest.mark.gpu`, `@RunIf(min_cuda_gpus=1)`,
// `@unittest.skipIf(not TEST_CUDA, ...)`). With `lists_gate` false, a
// decorator that lists values (`@pytest.mark.parametrize("d", ["cpu",
// "cuda"])`, `@parameterized.expand(...)`) gates nothing: the test runs with
// each of them.
bool decorated_for_cuda(const Source& source, TSNode definition, TSNode except = TSNode{},
                        bool lists_gate = true);
// Whether `scope` is, or is inside, a function or class such a decorator
// gates: its code runs only where CUDA is.
bool in_definition_for_cuda(const Source& source, int scope, bool lists_gate = true);
// Whether `inner` lies inside `outer` (by bytes; false for a null `outer`).
bool within(TSNode inner, TSNode outer);
// Whether `call` calls the function of scope `function` by its name: `f(...)`
// for a function, `self.f(...)` for a method.
bool calls_function(const Source& source, TSNode call, int function);
// Whether a name reads as a device variable: `device`, `dev`, `DEVICE`,
// `main_device`, `self.device` (any case).
bool is_device_name(std::string_view name);

// Whether a torch.nn layer's class (`Linear`, `Conv2d`, ...) has parameters
// or buffers (not `ReLU`, `Dropout`, a loss without a weight).
bool layer_has_parameters(std::string_view layer);

// Whether the file puts anything on a device: `.to(device)`-style moves and
// `device=` (Scope::uses_device), `.cuda()`, `torch.device(...)`, `.to(X)`
// with X naming a rank, a GPU, CUDA or a device (`.to(local_rank)`).
// Without one, what the file makes itself stays on the host.
bool uses_a_device(const Source& source);

// "line N" of a node (1-based).
std::string line_of(TSNode node);
// The function a node is in, as `'name'`, or "the module's code".
std::string where_in(const Source& source, TSNode node);

// The innermost enclosing `for` statement of `node` within its function, or
// a null node.
TSNode enclosing_loop(TSNode node);

// The nodes around `node`, innermost first, up to the root, in one descent
// from the root. tree-sitter's ts_node_parent() descends from the root at
// each call, so walking up with it costs the depth squared: a line of a
// thousand chained calls took seconds per rule that walked up from each.
std::vector<TSNode> ancestors(TSNode node);

}  // namespace devcheck::lint::detail

namespace devcheck::lint::detail {

// An object moved whole to a device as a statement: `model.to(device)`,
// `model.cuda()`, `model = model.to(device)`, `self.net = self.net.cuda()`
// (not `.to(torch.float16)`, not `.to("cpu")`).
struct WholeMove {
  TSNode call;
  std::string_view name;  // `model`, `self.net`
};
// Those of `scope` (its own statements, not nested functions'), in order.
std::vector<WholeMove> whole_moves(const Source& source, int scope);

}  // namespace devcheck::lint::detail
