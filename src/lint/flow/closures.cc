// Functions defined inside functions (flow.h): a call of one from the
// function that defines it runs it with the names it reads from there as
// they are at the call (a loss helper of an attack that reads the model and
// the labels of the function around it).
#include <string_view>

#include "run.h"

namespace devcheck::lint::detail {

void FlowRun::find_nested() {
  const auto& scopes = source_.scopes();
  for (int s = 1; s < static_cast<int>(scopes.size()); ++s) {
    const int parent = scopes[s].parent;
    if (scopes[s].kind == ScopeKind::kFunction && parent > 0 &&
        scopes[parent].kind == ScopeKind::kFunction) {
      nested_.emplace_back(parent, scopes[s].name, s);
    }
  }
}

int FlowRun::nested_function(int scope, std::string_view name) const {
  for (const auto& [parent, nested_name, nested] : nested_) {
    if (parent == scope && nested_name == name) return nested;
  }
  return -1;
}

void FlowRun::enter_closure(int callee, const Frame& caller) {
  if (source_.scopes()[callee].parent != caller.scope) return;
  if (summaries_[callee].state != Summary::kNotRun) return;
  Env& closure = closures_[callee];
  for (const auto& [name, value] : caller.env.bindings()) {
    if (name.rfind("self.", 0) != 0) closure.set(name, value);
  }
}

const Env* FlowRun::closure(int scope) const {
  const auto found = closures_.find(scope);
  return found == closures_.end() ? nullptr : &found->second;
}

}  // namespace devcheck::lint::detail
