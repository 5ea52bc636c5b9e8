#pragma once
// devcheck's pickle *scanner*: runs the pickle machine over untrusted bytes
// and builds a graph of plain values. It never imports or calls anything: a
// GLOBAL is recorded as a name, a REDUCE as a "call" node holding the callable
// and its arguments. It also remembers where in the byte stream storage
// locations and dict keys were pushed, so that remap can rewrite exactly those
// bytes (see Site). Not thread-safe per object; pure functions otherwise.

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace devcheck::detail {

constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;

enum class NodeKind : std::uint8_t {
  kNone,
  kBool,
  kInt,
  kBigInt,  // more than 64 bits; text: hex of LONG1/LONG4 bytes, or LONG's decimal digits
  kFloat,
  kString,
  kBytes,
  kTuple,
  kList,
  kDict,
  kSet,
  kGlobal,      // text is "module.name"; split is the length of module
  kCall,        // REDUCE / NEWOBJ / OBJ / INST: callable(args), never called
  kPersistent,  // BINPERSID: persistent is the index into Pickle::persistent_ids
};

struct Node {
  NodeKind kind = NodeKind::kNone;
  bool boolean = false;
  std::int64_t integer = 0;
  double real = 0;
  std::string text;
  std::uint32_t split = 0;
  std::uint32_t callable = kNoNode;  // kCall
  std::uint32_t args = kNoNode;      // kCall: a tuple node
  std::uint32_t state = kNoNode;     // BUILD's argument, for any node
  std::vector<std::uint32_t> items;  // tuple/list/set elements; APPENDs on a call node
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // dict items; SETITEMs on a call
  std::int32_t persistent = -1;

  std::string_view module() const { return std::string_view(text).substr(0, split); }
  std::string_view name() const {
    return split < text.size() ? std::string_view(text).substr(split + 1) : std::string_view();
  }
};

// Where a value was pushed: the op that pushed it ([begin, end)) and, when the
// next op memoized it, that memo op ([memo_begin, memo_end)). Only string ops
// and memo gets are rewritable (valid) sites; begin == end for values that no
// single op pushed (DUP).
struct Site {
  bool valid = false;
  std::uint64_t begin = 0, end = 0;
  std::uint64_t memo_begin = 0, memo_end = 0;
};

struct PersistentId {
  std::uint32_t tuple = kNoNode;  // the persistent id value (normally a tuple)
  Site location;                  // item 3 of ('storage', type, key, location, numel[, view])
  Site view_metadata;             // item 5, legacy format only
  std::uint64_t offset = 0;       // of the BINPERSID op
};

struct GlobalRef {
  std::string module, name;
  std::uint64_t offset = 0;  // of the op that named it
};

struct KeySite {
  std::uint32_t key = kNoNode;  // a string node used as a dict key
  Site site;
};

struct Pickle {
  std::vector<Node> nodes;
  std::uint32_t root = kNoNode;
  int protocol = 0;
  std::vector<PersistentId> persistent_ids;
  std::vector<GlobalRef> globals;  // every global named, in order (duplicates kept once)
  std::vector<KeySite> key_sites;  // string dict keys pushed at a rewritable site
  std::vector<std::pair<std::uint64_t, std::uint64_t>> frames;  // FRAME op ranges
  std::uint64_t end = 0;                                        // offset just past STOP

  const Node& at(std::uint32_t index) const { return nodes.at(index); }
};

// Thrown (internally) when the bytes end before STOP: callers that read a
// pickle from a stream may retry with more bytes. Derives from nothing public.
struct PickleTruncated {
  std::uint64_t offset;
};

// Scans one pickle starting at `start` of `bytes`. `where` names the source
// for messages ("'model.pt' record 'model/data.pkl'"). Throws FormatError for
// malformed pickles (unknown opcode, stack underflow, bad memo index, ...),
// PickleTruncated when the bytes end before STOP.
Pickle scan_pickle(std::string_view bytes, const std::string& where, std::uint64_t start = 0);

// The pickle op that pushes `value` as a str (BINUNICODE).
std::string pickle_unicode(std::string_view value);

struct Edit {
  std::uint64_t begin = 0, end = 0;
  std::string replacement;
};

// Edits that make `site` push `value` instead, leaving any memo slot the
// original filled holding the original value (so that memo gets elsewhere,
// e.g. a user's config["device"], still see it).
std::vector<Edit> edits_to_replace(std::string_view bytes, const Site& site,
                                   std::string_view value);

// Applies non-overlapping edits (any order) to `bytes`.
std::string apply_edits(std::string_view bytes, std::vector<Edit> edits);

}  // namespace devcheck::detail
