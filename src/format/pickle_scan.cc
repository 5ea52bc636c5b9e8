#include "format/pickle_scan.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unordered_set>

#include "devcheck/format/error.h"

namespace devcheck::detail {
namespace {

struct Entry {
  std::uint32_t node;
  Site site;
  std::uint64_t origin = kNoOffset;  // the rewritable op whose value this is
};

class Scanner {
 public:
  Scanner(std::string_view bytes, const std::string& where, std::uint64_t start)
      : bytes_(bytes), where_(where), pos_(start) {}

  Pickle run();

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw format::FormatError(fmt::format(
        "[devcheck] cannot read {}: malformed pickle at byte {} (op 0x{:02x}): {}. Fix: the file "
        "is corrupt or not a PyTorch checkpoint; re-save it with torch.save",
        where_, op_begin_, op_, problem));
  }
  const char* take(std::uint64_t n) {
    if (n > bytes_.size() - pos_) throw PickleTruncated{pos_};
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  std::uint64_t take_uint(int n) {
    const auto* p = reinterpret_cast<const unsigned char*>(take(static_cast<std::uint64_t>(n)));
    std::uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
  }
  std::string_view take_line() {
    const std::size_t nl = bytes_.find('\n', pos_);
    if (nl == std::string_view::npos) throw PickleTruncated{pos_};
    std::string_view line = bytes_.substr(pos_, nl - pos_);
    pos_ = nl + 1;
    return line;
  }
  std::uint32_t add(Node node) {
    out_.nodes.push_back(std::move(node));
    return static_cast<std::uint32_t>(out_.nodes.size() - 1);
  }
  std::uint32_t add_simple(NodeKind kind) {
    Node n;
    n.kind = kind;
    return add(std::move(n));
  }
  void push(std::uint32_t node, bool rewritable = false) {
    Entry e{node, {}};
    e.site.valid = rewritable;
    e.site.begin = op_begin_;
    e.site.end = pos_;
    if (rewritable) e.origin = op_begin_;
    stack_.push_back(e);
  }
  Entry pop() {
    if (stack_.size() <= floor()) fail("stack underflow");
    Entry e = stack_.back();
    stack_.pop_back();
    return e;
  }
  Entry& top() {
    if (stack_.size() <= floor()) fail("stack underflow");
    return stack_.back();
  }
  std::size_t floor() const { return marks_.empty() ? 0 : marks_.back().first; }
  std::vector<Entry> pop_mark() {
    if (marks_.empty()) fail("no MARK to pop to");
    const std::size_t at = marks_.back().first;
    marks_.pop_back();
    std::vector<Entry> items(stack_.begin() + static_cast<std::ptrdiff_t>(at), stack_.end());
    stack_.resize(at);
    return items;
  }
  void memo_put(std::uint64_t index) {
    const Entry& e = top();
    out_memo_[index] = {e.node, e.origin};
  }
  void memo_get(std::uint64_t index) {
    const auto it = out_memo_.find(index);
    if (it == out_memo_.end()) fail(fmt::format("memo index {} was never stored", index));
    const auto [node, origin] = it->second;
    if (out_.nodes[node].kind == NodeKind::kString) {
      out_.memo_gets.push_back({op_begin_, pos_, node, origin});
    }
    push(node, /*rewritable=*/true);
  }
  void push_string(NodeKind kind, std::string_view text) {
    Node n;
    n.kind = kind;
    n.text.assign(text);
    push(add(std::move(n)), /*rewritable=*/kind == NodeKind::kString);
  }
  void push_int(std::int64_t v) {
    Node n;
    n.kind = NodeKind::kInt;
    n.integer = v;
    push(add(std::move(n)));
  }
  void push_global(std::string module, std::string name) {
    if (module.empty() || name.empty() || module.size() > 1024 || name.size() > 1024) {
      fail("a global needs a module and a name");
    }
    const std::string full = module + "." + name;
    if (seen_globals_.insert(full).second) {
      out_.globals.push_back({module, name, op_begin_});
    }
    Node n;
    n.kind = NodeKind::kGlobal;
    n.split = static_cast<std::uint32_t>(module.size());
    n.text = full;
    push(add(std::move(n)));
  }
  std::uint32_t make_tuple(const std::vector<Entry>& items) {
    Node n;
    n.kind = NodeKind::kTuple;
    n.items.reserve(items.size());
    for (const auto& e : items) n.items.push_back(e.node);
    const std::uint32_t id = add(std::move(n));
    // Remember where the parts of a storage persistent id came from.
    const Node& tuple = out_.nodes[id];
    if ((items.size() == 5 || items.size() == 6) &&
        out_.nodes[tuple.items[0]].kind == NodeKind::kString &&
        out_.nodes[tuple.items[0]].text == "storage") {
      PersistentId pid;
      pid.tuple = id;
      pid.location = items[3].site;
      if (items.size() == 6) pid.view_metadata = items[5].site;
      pid_sites_[id] = pid;
    }
    return id;
  }
  void push_call(std::uint32_t callable, std::uint32_t args) {
    Node n;
    n.kind = NodeKind::kCall;
    n.callable = callable;
    n.args = args;
    push(add(std::move(n)));
  }
  void set_items(std::uint32_t target, const std::vector<Entry>& kv) {
    Node& t = out_.nodes[target];
    if (t.kind != NodeKind::kDict && t.kind != NodeKind::kCall) fail("SETITEM(S) on a non-dict");
    if (kv.size() % 2 != 0) fail("SETITEMS with an odd number of items");
    for (std::size_t i = 0; i < kv.size(); i += 2) {
      out_.nodes[target].pairs.emplace_back(kv[i].node, kv[i + 1].node);
      if (out_.nodes[kv[i].node].kind == NodeKind::kString && kv[i].site.valid) {
        out_.key_sites.push_back({kv[i].node, kv[i].site});
      }
    }
  }
  void append_items(std::uint32_t target, const std::vector<Entry>& items) {
    Node& t = out_.nodes[target];
    if (t.kind != NodeKind::kList && t.kind != NodeKind::kCall && t.kind != NodeKind::kSet) {
      fail("APPEND(S) on a non-list");
    }
    for (const auto& e : items) out_.nodes[target].items.push_back(e.node);
  }
  // INT / LONG text: an int64, or a big integer kept as its decimal text.
  void push_decimal(std::string_view line) {
    std::string s(line);
    if (!s.empty() && s.back() == 'L') s.pop_back();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (!s.empty() && end == s.c_str() + s.size()) {
      if (errno == 0) {
        push_int(v);
        return;
      }
      if (errno == ERANGE && s.size() < 10000) {
        Node big;
        big.kind = NodeKind::kBigInt;
        big.text = s;
        push(add(std::move(big)));
        return;
      }
    }
    fail("bad decimal number '" + s.substr(0, 40) + "'");
  }
  std::int64_t parse_decimal(std::string_view line) {
    std::string s(line);
    if (!s.empty() && s.back() == 'L') s.pop_back();
    if (s.empty()) fail("empty number");
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (end != s.c_str() + s.size() || errno != 0) fail("bad decimal number '" + s + "'");
    return v;
  }

  std::string_view bytes_;
  const std::string& where_;
  std::uint64_t pos_;
  std::uint64_t op_begin_ = 0;
  unsigned op_ = 0;
  Pickle out_;
  std::vector<Entry> stack_;
  std::vector<std::pair<std::size_t, std::uint64_t>> marks_;  // stack height, MARK offset
  // memo index -> (node, origin of the value stored)
  std::unordered_map<std::uint64_t, std::pair<std::uint32_t, std::uint64_t>> out_memo_;
  std::unordered_map<std::uint32_t, PersistentId> pid_sites_;
  std::unordered_set<std::string> seen_globals_;
};

Pickle Scanner::run() {
  for (;;) {
    op_begin_ = pos_;
    op_ = static_cast<unsigned char>(*take(1));
    out_.opcodes.set(op_);
    switch (op_) {
      case 0x80: {  // PROTO
        out_.protocol = static_cast<int>(take_uint(1));
        if (out_.protocol > 5) fail(fmt::format("unsupported pickle protocol {}", out_.protocol));
        break;
      }
      case 0x95: {  // FRAME: optional framing; ignored, and dropped on rewrite
        take_uint(8);
        out_.frames.emplace_back(op_begin_, pos_);
        break;
      }
      case '.': {  // STOP
        if (stack_.empty()) fail("STOP with an empty stack");
        out_.root = stack_.back().node;
        out_.end = pos_;
        return std::move(out_);
      }
      case '(':  // MARK
        if (marks_.size() > 100000) fail("too many nested MARKs");
        marks_.emplace_back(stack_.size(), op_begin_);
        break;
      case '0':  // POP
        if (!stack_.empty() && stack_.size() > floor()) {
          stack_.pop_back();
        } else {
          pop_mark();  // POP on an empty frame discards the mark (pickle.py does)
        }
        break;
      case '1':  // POP_MARK
        pop_mark();
        break;
      case '2': {  // DUP: the copy is not rewritable, nor is its source any more
        const Entry e = top();
        if (e.origin != kNoOffset) out_.dup_sources.push_back(e.origin);
        stack_.push_back({e.node, {}, e.origin});
        break;
      }
      case 'N':
        push(add_simple(NodeKind::kNone));
        break;
      case 0x88:
      case 0x89: {  // NEWTRUE / NEWFALSE
        Node n;
        n.kind = NodeKind::kBool;
        n.boolean = op_ == 0x88;
        push(add(std::move(n)));
        break;
      }
      case 'K':
        push_int(static_cast<std::int64_t>(take_uint(1)));
        break;
      case 'M':
        push_int(static_cast<std::int64_t>(take_uint(2)));
        break;
      case 'J':
        push_int(static_cast<std::int32_t>(static_cast<std::uint32_t>(take_uint(4))));
        break;
      case 'I': {  // INT (protocol 0); "I01"/"I00" are True/False
        const std::string_view line = take_line();
        if (line == "01" || line == "00") {
          Node n;
          n.kind = NodeKind::kBool;
          n.boolean = line == "01";
          push(add(std::move(n)));
        } else {
          push_decimal(line);
        }
        break;
      }
      case 'L':
        push_decimal(take_line());
        break;
      case 0x8a:
      case 0x8b: {  // LONG1 / LONG4
        const std::uint64_t n = take_uint(op_ == 0x8a ? 1 : 4);
        const auto* p = reinterpret_cast<const unsigned char*>(take(n));
        if (n <= 8) {
          std::uint64_t v = 0;
          for (std::uint64_t i = n; i > 0; --i) v = (v << 8) | p[i - 1];
          if (n > 0 && n < 8 && (p[n - 1] & 0x80)) v |= ~std::uint64_t{0} << (8 * n);
          push_int(static_cast<std::int64_t>(v));
        } else {
          Node big;
          big.kind = NodeKind::kBigInt;
          for (std::uint64_t i = n; i > 0; --i) big.text += fmt::format("{:02x}", p[i - 1]);
          push(add(std::move(big)));
        }
        break;
      }
      case 'F': {
        const std::string line(take_line());
        char* end = nullptr;
        const double v = std::strtod(line.c_str(), &end);
        if (end != line.c_str() + line.size()) fail("bad float '" + line + "'");
        Node n;
        n.kind = NodeKind::kFloat;
        n.real = v;
        push(add(std::move(n)));
        break;
      }
      case 'G': {  // BINFLOAT: big-endian double
        const auto* p = reinterpret_cast<const unsigned char*>(take(8));
        std::uint64_t bits = 0;
        for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
        Node n;
        n.kind = NodeKind::kFloat;
        std::memcpy(&n.real, &bits, 8);
        push(add(std::move(n)));
        break;
      }
      case 'X':  // BINUNICODE
      {
        const std::uint64_t n = take_uint(4);
        push_string(NodeKind::kString, std::string_view(take(n), n));
        break;
      }
      case 0x8c: {  // SHORT_BINUNICODE
        const std::uint64_t n = take_uint(1);
        push_string(NodeKind::kString, std::string_view(take(n), n));
        break;
      }
      case 0x8d: {  // BINUNICODE8
        const std::uint64_t n = take_uint(8);
        push_string(NodeKind::kString, std::string_view(take(n), n));
        break;
      }
      case 'V':  // UNICODE (raw-unicode-escape, kept as is)
        push_string(NodeKind::kString, take_line());
        break;
      case 'S': {  // STRING: a quoted repr, kept without its quotes
        std::string_view line = take_line();
        if (line.size() >= 2 && (line.front() == '\'' || line.front() == '"') &&
            line.back() == line.front()) {
          line = line.substr(1, line.size() - 2);
        } else {
          fail("STRING without quotes");
        }
        push_string(NodeKind::kBytes, line);
        break;
      }
      case 'T':
      case 'U':
      case 'B':
      case 'C':
      case 0x8e:
      case 0x96: {  // BINSTRING, SHORT_BINSTRING, BINBYTES, SHORT_BINBYTES, BINBYTES8, BYTEARRAY8
        const int width = (op_ == 'U' || op_ == 'C') ? 1 : (op_ == 0x8e || op_ == 0x96) ? 8 : 4;
        const std::uint64_t n = take_uint(width);
        push_string(NodeKind::kBytes, std::string_view(take(n), n));
        break;
      }
      case ')':
        push(make_tuple({}));
        break;
      case 't':
        push(make_tuple(pop_mark()));
        break;
      case 0x85:
      case 0x86:
      case 0x87: {  // TUPLE1..3
        const std::size_t n = op_ - 0x84u;
        if (stack_.size() < floor() + n) fail("stack underflow");
        std::vector<Entry> items(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
        stack_.resize(stack_.size() - n);
        push(make_tuple(items));
        break;
      }
      case ']':
        push(add_simple(NodeKind::kList));
        break;
      case 'l': {
        const std::vector<Entry> items = pop_mark();
        const std::uint32_t list = add_simple(NodeKind::kList);
        append_items(list, items);
        push(list);
        break;
      }
      case '}':
        push(add_simple(NodeKind::kDict));
        break;
      case 'd': {
        const std::vector<Entry> items = pop_mark();
        const std::uint32_t dict = add_simple(NodeKind::kDict);
        set_items(dict, items);
        push(dict);
        break;
      }
      case 0x8f:
        push(add_simple(NodeKind::kSet));
        break;
      case 0x91: {  // FROZENSET
        const std::vector<Entry> items = pop_mark();
        const std::uint32_t set = add_simple(NodeKind::kSet);
        append_items(set, items);
        push(set);
        break;
      }
      case 'a': {  // APPEND
        const Entry value = pop();
        append_items(top().node, {value});
        break;
      }
      case 'e':
      case 0x90: {  // APPENDS, ADDITEMS
        const std::vector<Entry> items = pop_mark();
        append_items(top().node, items);
        break;
      }
      case 's': {  // SETITEM
        const Entry value = pop();
        const Entry key = pop();
        set_items(top().node, {key, value});
        break;
      }
      case 'u': {  // SETITEMS
        const std::vector<Entry> items = pop_mark();
        set_items(top().node, items);
        break;
      }
      case 'b': {  // BUILD: records the state, runs nothing
        const Entry state = pop();
        out_.nodes[top().node].state = state.node;
        break;
      }
      case 'c': {  // GLOBAL
        std::string module(take_line());
        std::string name(take_line());
        push_global(std::move(module), std::move(name));
        break;
      }
      case 0x93: {  // STACK_GLOBAL
        const Entry name = pop();
        const Entry module = pop();
        const Node& m = out_.nodes[module.node];
        const Node& n = out_.nodes[name.node];
        if (m.kind != NodeKind::kString || n.kind != NodeKind::kString) {
          fail("STACK_GLOBAL needs two strings");
        }
        push_global(m.text, n.text);
        break;
      }
      case 'i': {  // INST: module, name, then args from the mark
        std::string module(take_line());
        std::string name(take_line());
        const std::vector<Entry> args = pop_mark();
        push_global(std::move(module), std::move(name));
        const Entry cls = pop();
        push_call(cls.node, make_tuple(args));
        break;
      }
      case 'o': {  // OBJ: class and args from the mark
        std::vector<Entry> items = pop_mark();
        if (items.empty()) fail("OBJ without a class");
        const std::uint32_t cls = items.front().node;
        items.erase(items.begin());
        push_call(cls, make_tuple(items));
        break;
      }
      case 'R':
      case 0x81: {  // REDUCE, NEWOBJ
        const Entry args = pop();
        const Entry callable = pop();
        push_call(callable.node, args.node);
        break;
      }
      case 0x92: {  // NEWOBJ_EX: kwargs are dropped, nothing runs anyway
        pop();
        const Entry args = pop();
        const Entry cls = pop();
        push_call(cls.node, args.node);
        break;
      }
      case 'Q': {  // BINPERSID
        const Entry id = pop();
        PersistentId pid;
        const auto it = pid_sites_.find(id.node);
        if (it != pid_sites_.end()) pid = it->second;
        pid.tuple = id.node;
        pid.offset = op_begin_;
        out_.persistent_ids.push_back(pid);
        Node n;
        n.kind = NodeKind::kPersistent;
        n.persistent = static_cast<std::int32_t>(out_.persistent_ids.size() - 1);
        push(add(std::move(n)));
        break;
      }
      case 'P': {  // PERSID: a text id; torch never writes one
        Node id;
        id.kind = NodeKind::kString;
        id.text.assign(take_line());
        PersistentId pid;
        pid.tuple = add(std::move(id));
        pid.offset = op_begin_;
        out_.persistent_ids.push_back(pid);
        Node n;
        n.kind = NodeKind::kPersistent;
        n.persistent = static_cast<std::int32_t>(out_.persistent_ids.size() - 1);
        push(add(std::move(n)));
        break;
      }
      case 'p':
        memo_put(static_cast<std::uint64_t>(parse_decimal(take_line())));
        break;
      case 'q':
        memo_put(take_uint(1));
        break;
      case 'r':
        memo_put(take_uint(4));
        break;
      case 0x94:  // MEMOIZE
        memo_put(out_memo_.size());
        break;
      case 'g':
        memo_get(static_cast<std::uint64_t>(parse_decimal(take_line())));
        break;
      case 'h':
        memo_get(take_uint(1));
        break;
      case 'j':
        memo_get(take_uint(4));
        break;
      case 0x82:
      case 0x83:
      case 0x84: {  // EXT1/2/4: the copyreg registry may name any global
        const std::uint64_t code = take_uint(op_ == 0x82 ? 1 : op_ == 0x83 ? 2 : 4);
        push_global("copyreg._extension_registry", fmt::format("code_{}", code));
        break;
      }
      case 0x97:
      case 0x98:
        fail("out-of-band buffers are not supported");
      default:
        fail("unknown opcode");
    }
  }
}

}  // namespace

Pickle scan_pickle(std::string_view bytes, const std::string& where, std::uint64_t start) {
  if (start >= bytes.size()) throw PickleTruncated{start};
  return Scanner(bytes, where, start).run();
}

}  // namespace devcheck::detail
