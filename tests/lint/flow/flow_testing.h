#pragma once
// Helpers for the device flow's tests: a snippet, its tree, its facts and its
// flow, and words for what the flow found.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lint/flow/flow.h"
#include "lint/syntax.h"

namespace devcheck::lint::detail::testing {

// The tree outlives the parser that made it; the source and the flow read it.
struct Flowed {
  explicit Flowed(std::string code)
      : text(std::move(code)), tree(Parser().parse(text)), source(text, tree.get()), flow(source) {}
  std::string text;
  std::unique_ptr<TSTree, TreeDeleter> tree;
  Source source;
  Flow flow;
};

inline int line(TSNode node) { return static_cast<int>(ts_node_start_point(node).row) + 1; }

inline const char* place_name(Place p) {
  switch (p) {
    case Place::kHost:
      return "host";
    case Place::kDevice:
      return "device";
    case Place::kModuleDevice:
      return "module";
    default:
      return "?";
  }
}

inline const char* origin_name(Origin o) {
  switch (o) {
    case Origin::kFactory:
      return "factory";
    case Origin::kNumpy:
      return "numpy";
    case Origin::kAttribute:
      return "attribute";
    case Origin::kBatch:
      return "batch";
    case Origin::kDatasetItem:
      return "item";
    case Origin::kHostCopy:
      return "copy";
    case Origin::kUnmovedModule:
      return "unmoved";
    case Origin::kImage:
      return "image";
    case Origin::kInput:
      return "input";
    case Origin::kReleased:
      return "released";
    default:
      return "-";
  }
}

// "LINE origin(made at LINE) meets PLACE" for each meeting, in order.
inline std::vector<std::string> meetings(const Flowed& f) {
  std::vector<std::string> out;
  for (const Meeting& m : f.flow.meetings()) {
    out.push_back(
        std::to_string(line(m.where)) + " " + origin_name(m.host.origin) + "@" +
        (ts_node_is_null(m.host.made) ? std::string("-") : std::to_string(line(m.host.made))) +
        " meets " + place_name(m.other.place));
  }
  return out;
}

// "LINE PLACE" for each NumPy read of a tensor (`.numpy()`, np.sum(x)).
inline std::vector<std::string> numpy_reads(const Flowed& f) {
  std::vector<std::string> out;
  for (const NumpyRead& r : f.flow.numpy_reads()) {
    out.push_back(std::to_string(line(r.call)) + " " + place_name(r.value.place));
  }
  return out;
}

using Lines = std::vector<std::string>;

// The `torch.load` calls of a snippet, in the order they are written.
inline std::vector<const Call*> loads(const Flowed& f) {
  std::vector<const Call*> out;
  for (const Call& call : f.source.calls()) {
    if (call.qualified == "torch.load") out.push_back(&call);
  }
  return out;
}

}  // namespace devcheck::lint::detail::testing
