#pragma once
// devcheck's pickle *scanner*: runs the pickle machine over untrusted bytes
// and builds a graph of plain values. It never imports or calls anything: a
// GLOBAL is recorded as a name, a REDUCE as a "call" node holding the callable
// and its arguments. It also remembers where in the byte stream storage
// locations and dict keys were pushed, and where the memo handed them out
// again, so that remap can rewrite exactly those bytes (see Site, and
// string_edits in pickle_edit.h). What the scanned ops may be is the
// allowlist's business (allowlist.h). Not thread-safe per object; pure
// functions otherwise.

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "devcheck/export.h"

namespace devcheck::detail {

constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;
constexpr std::uint64_t kNoOffset = ~std::uint64_t{0};

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

// Where a value was pushed: the op that pushed it ([begin, end)). Only str ops
// and memo gets are rewritable (valid) sites; begin == end for values that no
// single op pushed (DUP).
struct Site {
  bool valid = false;
  std::uint64_t begin = 0, end = 0;
};

// A memo get (GET, BINGET, LONG_BINGET) of a str: where it is, the str node,
// and `source`, the offset of the rewritable op whose value the memo slot held
// (kNoOffset when the slot was filled from anything else).
struct MemoGet {
  std::uint64_t begin = 0, end = 0;
  std::uint32_t node = kNoNode;
  std::uint64_t source = kNoOffset;
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
  std::bitset<256> opcodes;                                     // every opcode used
  std::vector<MemoGet> memo_gets;          // every memo get of a str, in stream order
  std::vector<std::uint64_t> dup_sources;  // rewritable ops whose value a DUP copied
  std::uint64_t end = 0;                   // offset just past STOP

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
DEVCHECK_API Pickle scan_pickle(std::string_view bytes, const std::string& where,
                                std::uint64_t start = 0);

}  // namespace devcheck::detail
