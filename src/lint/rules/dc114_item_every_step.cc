// DC114 item-every-step: `.item()` directly in the body of a training loop
// (one that calls backward()) in a file that puts something on a device,
// unless the value read decides whether the loop stops (a convergence test,
// a stop on a non-finite loss, an assertion: they need it on every step).
#include <algorithm>
#include <array>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../common.h"
#include "../rule.h"
#include "../stack.h"

namespace devcheck::lint::detail {
namespace {

// The `for`/`while` statement around `node` that starts at byte `start`.
TSNode loop_at(TSNode node, uint32_t start) {
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (ts_node_start_byte(n) == start && (is(n, "for_statement") || is(n, "while_statement"))) {
      return n;
    }
  }
  return TSNode{};
}

// Whether `node` is the read `call` or holds it, or names `name`.
bool holds_value(const Source& source, TSNode node, TSNode call, std::string_view name) {
  if (ts_node_eq(node, call)) return true;
  if (stack_nearly_exhausted()) return false;  // deeper than the stack allows (stack.h)
  if (is(node, "identifier")) return !name.empty() && source.text(node) == name;
  const uint32_t n = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < n; ++i) {
    if (holds_value(source, ts_node_named_child(node, i), call, name)) return true;
  }
  return false;
}

// Whether `node` leaves the loop it is in: a `return`, a `raise`, an exit
// (`sys.exit(1)`), or a `break` not inside an inner loop (`in_inner` says
// whether `node` already is).
bool leaves_loop(const Source& source, TSNode node, bool in_inner = false) {
  if (is(node, "return_statement") || is(node, "raise_statement")) return true;
  if (stack_nearly_exhausted()) return false;  // deeper than the stack allows (stack.h)
  if (is(node, "break_statement")) return !in_inner;
  if (is(node, "function_definition") || is(node, "class_definition") || is(node, "lambda")) {
    return false;
  }
  if (is(node, "call")) {
    const std::string_view callee = source.text(field(node, "function"));
    if (callee == "sys.exit" || callee == "exit" || callee == "quit" || callee == "os._exit") {
      return true;
    }
  }
  in_inner = in_inner || is(node, "for_statement") || is(node, "while_statement");
  const uint32_t n = ts_node_named_child_count(node);
  for (uint32_t i = 0; i < n; ++i) {
    if (leaves_loop(source, ts_node_named_child(node, i), in_inner)) return true;
  }
  return false;
}

// Whether the value `call` reads (or the name it is assigned to) steers the
// loop: an `if` in `loop` tests it and leaves (breaks, returns, raises,
// exits), or it is the `while` condition.
bool steers_loop(const Source& source, TSNode loop, TSNode call) {
  if (ts_node_is_null(loop)) return false;
  std::string_view name;
  const TSNode parent = ts_node_parent(call);
  if (is(parent, "assignment") && ts_node_eq(field(parent, "right"), call) &&
      is(field(parent, "left"), "identifier")) {
    name = source.text(field(parent, "left"));
  }
  if (is(loop, "while_statement") && holds_value(source, field(loop, "condition"), call, name)) {
    return true;
  }
  // Each node with whether it lies in an inner loop (whose `break` ends that
  // loop only).
  std::vector<std::pair<TSNode, bool>> todo = {{field(loop, "body"), false}};
  while (!todo.empty()) {
    const auto [node, in_inner] = todo.back();
    todo.pop_back();
    if (ts_node_is_null(node) || is(node, "function_definition") || is(node, "class_definition")) {
      continue;
    }
    if (is(node, "if_statement") && holds_value(source, field(node, "condition"), call, name) &&
        leaves_loop(source, field(node, "consequence"), in_inner)) {
      return true;
    }
    const bool inner = in_inner || is(node, "for_statement") || is(node, "while_statement");
    const uint32_t n = ts_node_named_child_count(node);
    for (uint32_t i = 0; i < n; ++i) todo.emplace_back(ts_node_named_child(node, i), inner);
  }
  return false;
}

// Whether the step already waits for the tensor read (`loss` of
// `loss.item()`) just before the read: an `if` on it that leaves the loop
// (`if torch.isnan(loss): raise ...`) runs on every way to the read, earlier
// in its block or an enclosing block of the loop, and no backward() or
// optimizer step() lies between the two (the read would wait for those). A
// tensor's truth value copies it to the host: the read adds no wait of its
// own. Not a test of whether the name is set (`if loss is None:`), which
// reads nothing.
// Whether `condition` reads the value of the tensor `name` (`isnan(loss)`,
// `loss > 10`, `not loss`): not only its metadata (`loss.dim() != 0`,
// `loss.shape`, `.dtype`, `.device`, `.requires_grad`) or its type
// (`isinstance(loss, torch.Tensor)`), which wait for nothing.
bool reads_value(std::string_view condition, std::string_view name) {
  static constexpr std::array<std::string_view, 8> kMetadata = {
      ".shape", ".dim(", ".dtype", ".device", ".requires_grad", ".size(", ".ndim", ".numel("};
  const auto word = [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_';
  };
  for (std::size_t at = condition.find(name); at != std::string_view::npos;
       at = condition.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if ((at > 0 && (word(condition[at - 1]) || condition[at - 1] == '.')) ||
        (end < condition.size() && word(condition[end]))) {
      continue;  // part of another name
    }
    const std::string_view after = condition.substr(end);
    const std::string_view before = condition.substr(0, at);
    const bool metadata = std::any_of(kMetadata.begin(), kMetadata.end(),
                                      [&](std::string_view m) { return after.rfind(m, 0) == 0; });
    const bool type_test =
        before.size() >= 11 &&
        (before.substr(before.size() - 11) == "isinstance(" ||
         (before.size() >= 10 && before.substr(before.size() - 10) == "is_tensor("));
    if (!metadata && !type_test) return true;
  }
  return false;
}

bool waited_for_before(const Source& source, TSNode loop, TSNode call) {
  const TSNode function = field(call, "function");
  if (ts_node_is_null(loop) || !is(function, "attribute")) return false;
  const TSNode object = field(function, "object");
  if (!is(object, "identifier")) return false;
  const std::string_view name = source.text(object);
  for (TSNode at = call; !ts_node_is_null(at) && !ts_node_eq(at, loop); at = ts_node_parent(at)) {
    const TSNode block = ts_node_parent(at);
    if (!is(block, "block")) continue;
    for (TSNode before = ts_node_prev_named_sibling(at); !ts_node_is_null(before);
         before = ts_node_prev_named_sibling(before)) {
      if (!is(before, "if_statement")) continue;
      const TSNode condition = field(before, "condition");
      if (holds_value(source, condition, TSNode{}, name) &&
          source.text(condition).find("None") == std::string_view::npos &&
          reads_value(source.text(condition), name) &&
          leaves_loop(source, field(before, "consequence"))) {
        const uint32_t from = ts_node_end_byte(before);
        const uint32_t to = ts_node_start_byte(call);
        // The name set again between the two to a tensor not made from it
        // (`loss = model(x).sum()`, not `loss = loss / 2`) is another
        // tensor, not waited for.
        const auto& assigns = source.scopes()[source.scope_of(call)].assigns;
        const auto set = assigns.find(std::string(name));
        if (set != assigns.end() &&
            std::any_of(set->second.begin(), set->second.end(), [&](TSNode value) {
              return ts_node_start_byte(value) >= from && ts_node_start_byte(value) < to &&
                     !holds_value(source, value, TSNode{}, name);
            })) {
          return false;
        }
        return std::none_of(source.calls().begin(), source.calls().end(), [&](const Call& c) {
          return (c.method == "backward" || c.method == "step") &&
                 ts_node_start_byte(c.node) >= from && ts_node_start_byte(c.node) < to;
        });
      }
    }
    // Past a branch of the loop's body, the `if`s before it run on other ways.
    const TSNode owner = ts_node_parent(block);
    if (!ts_node_eq(owner, loop) && !is(owner, "with_statement") && !is(owner, "try_statement")) {
      return false;
    }
  }
  return false;
}

// Whether the read is checked by an assertion (`assert loss.item() < 1`,
// `self.assertEqual(w.grad.item(), expected)`, `torch.testing.assert_close`):
// the check raises when it fails, so, like a stop on a non-finite loss, it
// needs the value on every step (a test that checks each step).
bool asserted(const Source& source, TSNode call) {
  for (TSNode n = ts_node_parent(call); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (is(n, "assert_statement")) return true;
    if (is(n, "call")) {
      std::string_view callee = source.text(field(n, "function"));
      const std::size_t dot = callee.rfind('.');
      if (dot != std::string_view::npos) callee.remove_prefix(dot + 1);
      if (callee.rfind("assert", 0) == 0) return true;
    }
    if (is(n, "expression_statement") || is(n, "block")) return false;
  }
  return false;
}

// Whether `scope` is test code: a function named `test_*` or `_test*`
// (torch's `test_only_train_fn`, timm's `_test_model`), or a method of a
// class named `Test*`. A test's loop runs a few steps to check values, not
// to train fast: the wait per step costs nothing there.
// Also a helper that only test code calls, directly or through other such
// helpers (`run_training_test(...)`, called by a test case's
// `train_and_infer`, called by `test_training`): the test's loop, not
// training. `depth` bounds the chain of callers.
bool in_test(const Source& source, int scope, int depth = 0) {
  const int function = source.function_of(scope);
  if (function < 0) return false;
  const Scope& f = source.scopes()[function];
  if (f.name.rfind("test_", 0) == 0 || f.name.rfind("_test", 0) == 0) return true;
  if (f.owner_class >= 0 && source.scopes()[f.owner_class].name.rfind("Test", 0) == 0) return true;
  if (depth >= 3) return false;
  bool called = false;
  for (const Call& call : source.calls()) {
    if (!calls_function(source, call.node, function)) continue;
    if (source.function_of(call.scope) == function || !in_test(source, call.scope, depth + 1)) {
      return false;
    }
    called = true;
  }
  return called;
}

// Whether the read is summed into (or kept in) a name the function returns
// (`total_loss += loss.item()`, then `return total_loss`) and a loop of the
// file that calls the function tests what it returns to stop (an LR finder's
// `if loss > diverge_th * best_loss: break`): the caller needs the value on
// the host every step, as a stop test in the loop itself does.
bool returned_to_stop_test(const Source& source, const Call& read) {
  TSNode statement = ts_node_parent(read.node);
  while (is(statement, "binary_operator") || is(statement, "parenthesized_expression")) {
    statement = ts_node_parent(statement);  // `running = running + loss.item()`
  }
  if (!is(statement, "augmented_assignment") && !is(statement, "assignment")) return false;
  const TSNode left = field(statement, "left");
  if (!is(left, "identifier")) return false;
  const std::string_view name = source.text(left);
  const int function = source.function_of(read.scope);
  if (function < 0) return false;
  const Scope& f = source.scopes()[function];
  bool returned = false;
  std::vector<TSNode> todo = {field(f.node, "body")};
  while (!todo.empty() && !returned) {
    const TSNode node = todo.back();
    todo.pop_back();
    if (ts_node_is_null(node) || is(node, "function_definition") || is(node, "class_definition")) {
      continue;
    }
    if (is(node, "return_statement")) {
      returned =
          ts_node_named_child_count(node) == 1 && source.text(ts_node_named_child(node, 0)) == name;
      continue;
    }
    for (uint32_t i = 0, n = ts_node_named_child_count(node); i < n; ++i) {
      todo.push_back(ts_node_named_child(node, i));
    }
  }
  if (!returned) return false;
  return std::any_of(source.calls().begin(), source.calls().end(), [&](const Call& call) {
    return call.loop != Call::kNoLoop && calls_function(source, call.node, function) &&
           steers_loop(source, loop_at(call.node, call.loop), call.node);
  });
}

// A loop of at most this many steps runs "a few": the waits it adds are a
// handful, nothing worth accumulating on the device for.
constexpr long kFewSteps = 100;

// The value of a constant count: an integer literal, a module-level name
// given one once (`STEPS = 20`), or a sum, difference or product of those;
// -1 when it is not one.
long constant_count(const Source& source, TSNode node, int depth = 0) {
  if (ts_node_is_null(node) || depth > 4) return -1;
  if (is(node, "integer")) {
    const std::string_view text = source.text(node);
    if (text.size() > 9 || text.find_first_not_of("0123456789_") != std::string_view::npos) {
      return -1;
    }
    long value = 0;
    for (const char ch : text) value = ch == '_' ? value : value * 10 + (ch - '0');
    return value;
  }
  if (is(node, "identifier")) {
    const auto& constants = source.scopes()[0].assigns;
    const auto found = constants.find(std::string(source.text(node)));
    if (found == constants.end() || found->second.size() != 1) return -1;
    return constant_count(source, found->second[0], depth + 1);
  }
  if (is(node, "binary_operator")) {
    const long a = constant_count(source, field(node, "left"), depth + 1);
    const long b = constant_count(source, field(node, "right"), depth + 1);
    const std::string_view op = source.text(field(node, "operator"));
    // Past a few steps the count is not a few: stop before it can overflow.
    if (a < 0 || b < 0 || a > kFewSteps || b > kFewSteps) return -1;
    if (op == "+") return a + b;
    if (op == "-") return a - b;
    if (op == "*") return a * b;
  }
  return -1;
}

// Whether `loop` runs a few steps, fixed in the code: `for step in
// range(1, STEPS + 1)` with STEPS = 20 (peft's overfit test script): a test
// of a few steps on one batch, or a toy, not training that a wait per step
// slows.
bool few_steps(const Source& source, TSNode loop) {
  if (!is(loop, "for_statement")) return false;
  const TSNode iterable = field(loop, "right");
  if (!is(iterable, "call") || source.text(field(iterable, "function")) != "range") return false;
  const std::vector<TSNode> args = source.positional(iterable);
  if (args.empty() || args.size() > 2) return false;
  const long stop = constant_count(source, args.back());
  return stop >= 0 && stop <= kFewSteps;
}

void check(const RuleContext& c) {
  const Source& source = c.source;
  Sink& sink = c.sink;
  if (!uses_a_device(source)) return;
  for (const Call& call : source.calls()) {
    // Under a condition (`if step % 100 == 0`) it is not every step.
    if (call.method != "item" || call.conditional || call.loop == Call::kNoLoop ||
        !source.is_training_loop(call.loop) ||
        ts_node_named_child_count(field(call.node, "arguments")) != 0) {
      continue;
    }
    const TSNode loop = loop_at(call.node, call.loop);
    if (steers_loop(source, loop, call.node) || waited_for_before(source, loop, call.node) ||
        asserted(source, call.node) || few_steps(source, loop) || in_test(source, call.scope) ||
        returned_to_stop_test(source, call)) {
      continue;
    }
    sink.report(call.node, "DC114",
                ".item() on every step of a training loop waits for the device each time; "
                "accumulate on the device (total += loss.detach()) and read it once per "
                "epoch or under a logging condition");
  }
}

}  // namespace

extern const Rule kRuleDC114;
const Rule kRuleDC114 = {
    {"DC114", "item-every-step", ".item() on every step of a training loop.", false},
    "for x, y in loader:\n"
    "    x, y = x.to(device), y.to(device)\n"
    "    loss = loss_fn(model(x), y)\n"
    "    loss.backward()\n"
    "    total += loss.item()\n",
    "for step, (x, y) in enumerate(loader):\n"
    "    x, y = x.to(device), y.to(device)\n"
    "    loss = loss_fn(model(x), y)\n"
    "    loss.backward()\n"
    "    total += loss.detach()\n"
    "    if step % 100 == 0:\n"
    "        print(loss.item())\n",
    check};

}  // namespace devcheck::lint::detail
