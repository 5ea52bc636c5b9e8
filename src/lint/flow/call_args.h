#pragma once
// What calls.cc and methods.cc share of a call's evaluated arguments.
// Internal to the flow.
#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "run.h"

namespace devcheck::lint::detail {

inline const FlowRun::Arg* keyword_arg(const std::vector<FlowRun::Arg>& args,
                                       std::string_view name) {
  for (const FlowRun::Arg& a : args) {
    if (a.keyword == name) return &a;
  }
  return nullptr;
}

inline bool has_splat(const std::vector<FlowRun::Arg>& args) {
  return std::any_of(args.begin(), args.end(), [](const FlowRun::Arg& a) {
    return is(a.node, "list_splat") || is(a.node, "dictionary_splat");
  });
}

// `**kwargs` among the arguments: the only way a call of a factory (whose
// device= is keyword-only) can be given a device the flow does not see.
inline bool has_keyword_splat(const std::vector<FlowRun::Arg>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const FlowRun::Arg& a) { return is(a.node, "dictionary_splat"); });
}

// What an argument gives a computation: a tokenizer's output its tensors,
// a list (of lists) its innermost elements.
inline Value effective(const Value& v) {
  if (v.kind == Kind::kEncoding) {
    Value tensors = v;
    tensors.kind = Kind::kTensor;
    return tensors;
  }
  if (v.kind != Kind::kList) return v;
  Value e = element_value(v);
  for (int depth = 0; depth < 3 && e.kind == Kind::kList; ++depth) e = element_value(e);
  return e;
}

}  // namespace devcheck::lint::detail
