#pragma once
// The device flow's pass (flow.h): scopes (scopes.cc), statements
// (statements.cc, loops in loops.cc), expressions (expressions.cc), calls
// (calls.cc; torch's modules and functions in torch_calls.cc, methods of
// values in methods.cc) and what calls pass to parameters (params.cc).
// Internal to the flow.

#include <algorithm>
#include <array>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "flow.h"

namespace devcheck::lint::detail {

// Whether `word` is one of `words`.
template <std::size_t N>
bool among(std::string_view word, const std::array<std::string_view, N>& words) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// Calls `visit` on each named child, in order (a cursor: a child by index
// costs a walk over the ones before it).
template <typename Visit>
void for_each_named_child(TSNode node, Visit visit) {
  if (ts_node_child_count(node) == 0) return;
  TSTreeCursor cursor = ts_tree_cursor_new(node);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      const TSNode child = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(child)) visit(child);
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
}

// What is known of each name at one point of a scope.
class Env {
 public:
  Env() = default;
  // A copy leaves the index behind (most environments are small, and a copy
  // is made at every branch): it is made again when the copy grows large.
  Env(const Env& other) : bindings_(other.bindings_) {}
  Env& operator=(const Env& other) {
    if (this != &other) {
      bindings_ = other.bindings_;
      index_.clear();
    }
    return *this;
  }
  // A moved-from environment is empty, its index too (reused, it must not
  // find names through a stale one).
  Env(Env&& other) noexcept
      : bindings_(std::move(other.bindings_)), index_(std::move(other.index_)) {
    other.bindings_.clear();
    other.index_.clear();
  }
  Env& operator=(Env&& other) noexcept {
    if (this != &other) {
      bindings_ = std::move(other.bindings_);
      index_ = std::move(other.index_);
      other.bindings_.clear();
      other.index_.clear();
    }
    return *this;
  }
  ~Env() = default;

  const Value* find(std::string_view name) const {
    const std::size_t i = position(name);
    return i == kAbsent ? nullptr : &bindings_[i].second;
  }
  void set(std::string_view name, const Value& value) {
    const std::size_t i = position(name);
    if (i != kAbsent) {
      bindings_[i].second = value;
      return;
    }
    append(name, value);
  }
  const std::vector<std::pair<std::string_view, Value>>& bindings() const { return bindings_; }
  // The names after two ways through (an `if` and its `else`): where both
  // agree, that value; else what both have in common.
  void merge(const Env& other);

 private:
  static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);
  // A name not bound yet (the index, where made, kept in step).
  void append(std::string_view name, const Value& value) {
    bindings_.emplace_back(name, value);
    if (!index_.empty()) index_.emplace(name, bindings_.size() - 1);
  }
  // Up to this many names a lookup reads them in turn; above, through the
  // index (a module of thousands of statements binds thousands of names, and
  // every loop or branch merges its environment: quadratic, then cubic).
  static constexpr std::size_t kScanned = 32;
  std::size_t position(std::string_view name) const {
    if (bindings_.size() <= kScanned) {
      for (std::size_t i = bindings_.size(); i-- > 0;) {
        if (bindings_[i].first == name) return i;
      }
      return kAbsent;
    }
    if (index_.empty()) {
      index_.reserve(bindings_.size() * 2);
      for (std::size_t i = 0; i < bindings_.size(); ++i) index_.emplace(bindings_[i].first, i);
    }
    const auto it = index_.find(name);
    return it == index_.end() ? kAbsent : it->second;
  }
  std::vector<std::pair<std::string_view, Value>> bindings_;
  // Name to position in bindings_, made on the first lookup above kScanned.
  mutable std::unordered_map<std::string_view, std::size_t> index_;
};

// What two ways through leave of a value.
Value join(const Value& a, const Value& b);

// One run of a function's (or the module's) body.
struct Frame {
  int scope = 0;
  int owner_class = -1;        // the class scope of a method
  bool module_method = false;  // a method of an nn.Module subclass
  bool forward = false;        // ... named forward
  bool init = false;           // ... named __init__
  Env env;
  std::vector<Value> returns;
  std::vector<std::vector<Value>> tuple_returns;
  int default_device = 0;  // inside `with torch.device(...)`
  // `for` statements around the statement: their targets and what each turn
  // binds (comprehensions' are not counted: a list's elements are moved one
  // by one where a list is what the code has).
  std::vector<std::pair<TSNode, Value>> loops;
  // Names bound to a module another name holds (`model = net`): a move of
  // one in place moves the other.
  std::vector<std::pair<std::string_view, std::string_view>> aliases;
};

// What the calls in this file pass to one parameter of one of its functions
// (methods and constructors too): a value the flow knows at every call, all
// alike (a model moved in main() and passed to train(), a device tensor
// passed to a metrics helper). Found by one run of the flow, used by the
// next (Flow's constructor runs it again while they grow).
struct ParamHint {
  std::string_view name;
  Value value;
  // No call has told anything yet: only calls from within the function's
  // own class (or itself) passed it something the flow does not know.
  bool absent = false;
  // A host tensor of a factory that a module's own method made and passes
  // to another method of its class (record_call()).
  bool own = false;
};
using ParamHints = std::vector<std::vector<ParamHint>>;  // by the callee's scope
// Whether a host copy (`x.cpu()`, `x.cpu().contiguous()`) was made as an
// argument of another call than `call` (`knn(x.cpu(), k)`).
bool copied_for_a_call(TSNode copy, TSNode call);
// Whether a node is a literal number (or bool), signed or not.
bool is_literal_number(TSNode node);
// Whether `node` runs only while torch.fx traces the code: in the branch of
// `if is_torch_fx_proxy(x):` (`isinstance(x, torch.fx.Proxy)`,
// `is_fx_tracing()`), where values are proxies, never tensors on a device.
bool only_when_traced(const Source& source, TSNode node);
// Whether two runs found the same hints.
bool same_hints(const ParamHints& a, const ParamHints& b);
// The hint for parameter `name` of `scope`, if any.
const Value* hint(const ParamHints& hints, int scope, std::string_view name);

// What a framework's call does with placement (frameworks.cc).
enum class Framework : uint8_t {
  kNone,
  kLauncher,  // moves the modules it is given, in place, and returns them placed
  kEngine,    // moves the batches to device=, never the model
  kTrainer,   // moves its model in place as it is made
  kKeeps,     // gives back its first argument where it is (torch.compile, a copy)
  kReleases,  // moves its model back to the host when it ends (Lightning's fit)
};
struct FrameworkCall {
  uint32_t start = 0;  // the call's start byte
  Framework framework = Framework::kNone;
  int scope = 0;
};
// The file's calls of a framework that places what it is given, by start
// byte.
std::vector<FrameworkCall> framework_calls(const Source& source);

// What a framework hands a method of a class of the file (frameworks.cc):
// a LightningModule's step its batch (moved to the module's device), its
// `*_epoch_end(self, outputs)` what its steps returned, a Hugging Face
// trainer's `compute_loss(self, model, inputs)` the model and the inputs it
// moved to its device.
enum class Handed : uint8_t { kNone, kStepBatch, kStepOutputs, kTrainerLoss };
Handed framework_handed(const Source& source, int scope);
// Whether a class of the file is a LightningModule (Lightning's Trainer
// moves it to its device).
bool lightning_module(const Source& source, int class_scope);
// Whether `object.images` reads a diffusers pipeline's images as its call
// asks for them: PIL images (its default) or NumPy arrays, no tensor
// (frameworks.cc).
bool host_images(const Source& source, TSNode object);
// Whether a dict literal, or an assignment of one or of a dict's key, asks
// a diffusers pipeline for what is no tensor (`{"output_type": "np"}`,
// `inputs["output_type"] = "np"`) (frameworks.cc).
bool asks_host_output(const Source& source, TSNode node);

class FlowRun {
 public:
  FlowRun(const Source& source, Flow& out, const ParamHints& hints);
  void run();
  // Forgets what a run learnt, for another run with new hints; keeps what
  // depends on the source alone.
  void restart();
  // What this run's calls passed, for the next run: only what a rule may
  // use (on a device, or a model never moved), known at every call.
  ParamHints param_hints() const;

  // One argument of a call, evaluated: a list's or tuple's elements each
  // (torch.cat([a, b]), an RNN's (h, c)).
  struct Arg {
    TSNode node;
    std::string_view keyword;  // empty for positional ones
    Value value;
    bool in_sequence = false;
  };

 private:
  struct Summary {
    enum State : uint8_t { kNotRun, kRunning, kDone } state = kNotRun;
    Value value;
    std::vector<Value> tuple;
  };

  // scopes.cc, statements.cc and loops.cc.
  void prepass();
  // Whether a function's body can tell the flow anything a rule reads: it
  // makes, moves or reads a tensor's place, builds a module, a loader or a
  // dataset, calls a module of the file, a function of the file or something
  // moved. Others run only when called (for what they return).
  void find_relevant();
  // The attributes (`self.head`) each class keeps a module in (made from a
  // torch.nn layer, a model class of the file, a wrapper, or moved in place):
  // calls on them run their method (`self.head.process_output(out)`).
  void find_module_attributes();
  bool module_attribute_call(const Call& call) const;
  std::vector<std::pair<int, std::string>> module_attributes_;
  Summary& analyze(int scope);
  // What analyze() answers where the stack runs short (stack.h).
  Summary unknown_summary_;
  void analyze_class(int class_scope);
  void exec_block(TSNode block, Frame& frame);
  void exec(TSNode statement, Frame& frame);
  void exec_expression_statement(TSNode expression, Frame& frame);
  // `assert isinstance(x, PIL.Image.Image)` (values.cc).
  void exec_assert(TSNode statement, Frame& frame);
  void exec_assignment(TSNode node, Frame& frame);
  void exec_if(TSNode node, Frame& frame);
  void exec_for(TSNode node, Frame& frame);
  Value moved_batch(const Value& element, TSNode target, TSNode iterable, TSNode body) const;
  void bind(TSNode target, const Value& value, Frame& frame, TSNode value_node);
  void bind_parameters(TSNode function, Frame& frame);
  void save_hyperparameters(Frame& frame);

  // expressions.cc, calls.cc and torch_calls.cc.
  Value eval(TSNode node, Frame& frame);
  Value eval_call(TSNode call, Frame& frame);
  std::vector<Arg> eval_args(TSNode call, Frame& frame);
  Value eval_method(TSNode call, TSNode object, std::string_view method, const Value& receiver,
                    const std::vector<Arg>& args, Frame& frame);
  Value eval_move(TSNode call, TSNode object, std::string_view method, Frame& frame,
                  bool statement);
  Value eval_factory(TSNode call, std::string_view qualified, Frame& frame);
  // A framework's call (frameworks.cc): what it returns where it decides
  // (a launcher), else nothing (the call goes on as any other).
  std::optional<Value> eval_framework(TSNode call, Framework framework,
                                      const std::vector<Arg>& args, Frame& frame);
  // A framework's helper that moves every tensor of a container
  // (frameworks.cc): what it gives is where it moves it, else nothing.
  std::optional<Value> container_move(TSNode call, std::string_view qualified, Frame& frame);
  std::vector<FrameworkCall> framework_calls_;
  // params.cc: the parameters of functions no call of the file passes that
  // come from the host beside one the function moves to a device itself
  // (`def evaluate(model, x, y, device): x = x.to(device)`: y), sorted.
  void find_host_inputs();
  bool host_input(int scope, std::string_view name) const;
  std::vector<std::pair<int, std::string_view>> host_inputs_;
  // A Hugging Face model's `from_pretrained(...)`: on the CPU, or where its
  // device_map or quantization puts it; nothing where device_map is unknown.
  std::optional<Value> pretrained_model(TSNode call, const std::vector<Arg>& args, Frame& frame);
  Value eval_module_call(TSNode call, TSNode function, const Value& module,
                         const std::vector<Arg>& args, Frame& frame);
  // Whether a call asks for what is no tensor (a diffusers pipeline's
  // `output_type="np"`), or may in `**kwargs` the flow cannot see
  // (frameworks.cc): it gives nothing known.
  bool host_output(const Value& callee, const std::vector<Arg>& args) const;
  // `inputs["output_type"] = "np"` (an assignment) or `d.update(inputs)` (a
  // call) where inputs ask so: marks the dict; whether it did (frameworks.cc).
  bool keywords_asked(TSNode statement, Frame& frame);
  // The parts of a tuple a model of this file returns (last_tuple_).
  void forward_tuple(const Value& module, const Value& out);
  void pass_batch_to_forward(TSNode call, const Value& module, const std::vector<Arg>& args,
                             const Frame& frame);
  Value eval_torch_function(TSNode call, std::string_view qualified, const std::vector<Arg>& args,
                            Frame& frame);
  Value computed_from(TSNode function, const Value& callee, const std::vector<Arg>& args) const;
  std::optional<Value> call_instance(TSNode call, const Value& callee, const std::vector<Arg>& args,
                                     Frame& frame);
  // torch.tensor(name) on the host, which may be 0-dim (host_tensor() says
  // no) but which a module's layers refuse all the same.
  bool host_data(const Value& v) const;
  // The tensor an image transform (Origin::kImage) called makes: on the host.
  static Value image_tensor(TSNode call);
  Value eval_binary(TSNode node, Frame& frame);
  // dicts.cc: the entries of the dicts whose keys the flow follows
  // (Value::keys), each a table of its own (an update makes a new one: the
  // value before it keeps its entries).
  struct DictEntry {
    std::string key;
    Value value;
  };
  std::vector<std::vector<DictEntry>> dicts_;
  // A table of entries for a dict (its index).
  int record_dict(std::vector<DictEntry> entries);
  // `d["k"]` of a dict whose keys the flow follows: what was stored under
  // "k" (unknown where nothing was); nothing where `key` is no string.
  std::optional<Value> dict_entry(const Value& dict, TSNode key) const;
  // The table of `dict` after `d[key] = v` (-1 where the key is computed).
  int dict_stored(const Value& dict, TSNode key, const Value& v);
  // A call statement that may change a dict in a way the flow does not
  // follow (`d.update(...)`, `d.pop("k")`, `fill(d)`): its keys are
  // forgotten.
  void forget_changed_keys(TSNode call, Frame& frame);
  Value eval_subscript(TSNode node, Frame& frame);
  // `moved`: a module moved in place anywhere in the file is on the device
  // (false: the value as the flow has it here).
  Value lookup(std::string_view name, Frame& frame, bool moved = true) const;
  // Whether `name`, read in `frame`, is moved in place where it is the same
  // object: anywhere for a module-level name (`global`) or `self.x` (in the
  // class's methods), in a caller for a parameter (`global` too).
  bool moved_elsewhere(std::string_view name, const Frame& frame, bool global,
                       bool parameter) const;
  // A call of the plain class's method `method_scope` on an object made by
  // the class (`clf = Classifier.load(...)`, then `clf.predict(x)`) where no
  // method of the class that moves `name` (`self.model`) was called on it
  // before (null if none; also when __init__ or the method itself moves it).
  TSNode call_without_move(int method_scope, std::string_view name) const;
  TSNode find_call_without_move(int method_scope, std::string_view name) const;
  mutable std::vector<std::tuple<int, std::string_view, TSNode>> without_move_;
  Place device_of(TSNode target, Frame& frame);
  std::optional<Value> first_parameter(TSNode function, const std::vector<Arg>& args, Frame& frame);
  std::optional<Value> sparse_tensor(TSNode call, std::string_view qualified,
                                     const std::vector<Arg>& args, Frame& frame);
  void index_put(TSNode node, TSNode target, TSNode right, const Value& v, Frame& frame);
  bool bind_module_tensors(TSNode loop, Frame& frame);
  std::optional<Value> module_tensor(TSNode iterated, Frame& frame);
  bool device_choice(std::string_view name, int scope) const;
  bool default_host(int class_scope, std::string_view name) const;
  bool default_host_parameter(int class_scope, std::string_view parameter) const;
  bool find_default_host_parameter(int class_scope, std::string_view parameter) const;
  mutable std::vector<std::tuple<int, std::string_view, bool>> default_host_parameters_;
  mutable std::vector<std::tuple<int, std::string_view, bool>> default_hosts_;
  std::vector<Value> eval_elements(TSNode node, std::size_t count, Frame& frame);
  Value element_of(const Value& iterable, TSNode node, Frame& frame);
  void meet(TSNode where, TSNode a_node, const Value& a, TSNode b_node, const Value& b,
            Frame& frame, bool known_tensors_only = false);
  int file_function(TSNode function, const Frame& frame) const;
  // A function of the file a class's __init__ keeps in an attribute
  // (`self.loss = loss` where `loss` names one, or is a parameter whose
  // default does): the function's scope for a call `self.loss(...)`, else -1.
  int kept_function(TSNode function, const Frame& frame) const;
  // A torch factory the class's __init__ keeps in an attribute (`self.win =
  // torch.hann_window`): its qualified name for a call `self.win(n)`, else
  // empty.
  std::string kept_factory(TSNode function, const Frame& frame) const;
  // The value `self.x = value` assigns among the statements of the class's
  // __init__ (null if none).
  TSNode kept_in_init(TSNode function, const Frame& frame) const;
  // A member of an instance of a class of this file (`model.gru`, the method
  // `model.init_hidden`): its value as seen from outside (what is on the
  // module's device inside is where the instance is). False when unknown.
  bool member(const Value& instance, std::string_view name, Value& value, int& method);

  // closures.cc: functions defined in functions, run from there with the
  // names they read from the function around them as they are at the call.
  void find_nested();
  int nested_function(int scope, std::string_view name) const;
  void enter_closure(int callee, const Frame& caller);
  const Env* closure(int scope) const;
  std::vector<std::tuple<int, std::string_view, int>> nested_;  // (parent, name, scope)
  std::unordered_map<int, Env> closures_;

  // params.cc: the calls' arguments, by callee and parameter.
  // `on_device`: a method called on a module on a device (`model.predict(x)`),
  // which a batch given on the host meets there.
  void record_call(int callee, TSNode call, const std::vector<Arg>& args, const Frame& frame,
                   bool on_device = false);
  // A module given (by name) to a function of the file that moves it in
  // place (`model.to(device)` of its parameter) is on the device after the
  // call (`train(model, ...)`, then `evaluate(model, ...)`).
  void moved_by_callee(int callee, TSNode call, Frame& frame);

  // Whether a function's scope is a @staticmethod, a @property, a test of
  // torch's suite run on the CPU only (`@onlyCPU`) (bits),
  // found once per scope: a decorator is found through the node's parent,
  // which tree-sitter finds by a walk from the root.
  enum : uint8_t { kStatic = 1, kProperty = 2, kOnlyCpu = 4 };
  int decorators(int scope) const;
  mutable std::vector<int8_t> decorators_;  // by scope; -1 not found yet

  const Source& source_;
  Flow& out_;
  bool prepared_ = false;  // prepass() and the find_*() done
  const ParamHints& hints_in_;
  ParamHints passed_;           // what each callee's calls passed (strictly joined)
  std::vector<bool> recorded_;  // whether a call of each scope was seen
  std::vector<Summary> summaries_;
  Env globals_;
  const Env* module_env_ = nullptr;  // the module's names while its code runs
  std::unordered_map<int, Env> class_attributes_;
  std::unordered_map<int, Env> init_attributes_;         // what __init__ left in `self.x`
  std::unordered_map<std::string_view, int> functions_;  // top-level functions by name
  bool default_device_set_ = false;                      // torch.set_default_device(...) somewhere
  // A framework's loaders place their batches (`fabric.setup_dataloaders()`,
  // `accelerator.prepare()` somewhere): a DataLoader's batch is not known to
  // be on the host.
  bool loaders_placed_ = false;
  bool mentions_pin_memory_ = false;
  std::vector<bool> relevant_;
  // The start bytes of the calls that tell the flow something, in order.
  std::vector<uint32_t> relevant_calls_;
  // Whether a statement can tell the flow nothing: no such call in it and
  // no name the flow knows a value of (data tables, logging, plain Python).
  bool says_nothing(TSNode statement, const Frame& frame) const;
  // The same of any node (a large literal table inside a statement).
  bool inert(TSNode node, const Frame& frame) const;
  std::vector<bool> class_done_;
  // (class scope, method name, method scope), sorted: the methods of the
  // file's classes.
  std::vector<std::tuple<int, std::string_view, int>> methods_;
  int method_of(int class_scope, std::string_view name) const;
  // Whether a module's method runs only while its module is built: the
  // file calls it only as `self.m(...)` in `__init__` of its class.
  bool runs_only_in_init(int scope);
  // Method names called elsewhere than as `self.m(...)` in an `__init__`
  // (made when first asked for).
  std::vector<std::string_view> called_outside_init_;
  bool called_outside_init_made_ = false;
  // The method of that name where one class of the file alone has one
  // (not a dunder, not forward); -1 otherwise.
  int only_method(std::string_view name) const;
  // Names made here (`self.<name>` of register_buffer("name", ...)), kept
  // where the views of them stay valid.
  std::deque<std::string> interned_;
  // (class, `self.<name>`) registered by register_buffer/register_parameter
  // in the __init__ of a class not known as an nn.Module (its base is
  // imported): on the module's device in its other methods.
  std::vector<std::pair<int, std::string_view>> registered_in_init_;
  // The tuple the last call of a function of this file returned, if it
  // returns tuples (for `a, b = helper(...)`).
  std::vector<Value> last_tuple_;
};

// The module a chain of its methods that return it starts from (`net` of
// `net.eval()`, `model.train().float()`); `node` itself when it is no such
// chain.
TSNode module_chain_root(const Source& source, TSNode node);
// The same through moves too: `Net()` of `Net().to(device).eval()`.
TSNode made_module_root(const Source& source, TSNode node);

// The node types the flow's expressions tell apart, by symbol id (a table
// lookup, where comparing type names costs a strcmp each).
enum class Sym : uint8_t {
  kOther,
  kIdentifier,
  kCall,
  kAttribute,
  kSubscript,
  kBinaryOperator,
  kComparisonOperator,
  kParenthesizedExpression,
  kUnaryOperator,
  kAwait,
  kConditionalExpression,
  kNone,
  kList,
  kTuple,
  kSet,
  kDictionary,
  kExpressionList,
  kListComprehension,
  kGeneratorExpression,
  kSetComprehension,
  kDictionaryComprehension,
  kNamedExpression,
  kBooleanOperator,
  kLambda,
  kString,
  kInteger,
  kFloat,
  kTrue,
  kFalse,
};
Sym sym(TSNode node);

// Method names whose result is a tensor where they are methods of one.
bool tensor_method(std::string_view method);
// Methods of tensors whose result is not a tensor (a number, a size, ...).
bool non_tensor_method(std::string_view method);
// `torch.float32`, `torch.long`, `x.dtype`: a dtype, not a device.
bool is_dtype(const Source& source, TSNode node);
// What a factory's arguments tell of its tensor's shape: one element
// (`torch.rand(1)`, `torch.zeros(1, 1)`) or one dimension (`torch.arange`,
// `linspace`, `randperm`, `torch.rand(5)`); sets `v.one_element`/`one_dim`.
void factory_shape(const Source& source, std::string_view qualified,
                   const std::vector<TSNode>& positional, Value& v);
// What a tensor method keeps of its receiver's shape (`v` is the
// receiver's value, the result's place): a cast (`.long()`) keeps it,
// `.squeeze()` of one element is 0-dim, anything else forgets it.
void method_shape(std::string_view method, bool no_args, Value& v);
// Torch functions that compute on their tensor arguments (and so need them
// on one device): torch.<op>, torch.nn.functional, linalg, fft, special.
bool computes_on_arguments(std::string_view qualified);
// Torch functions that give no tensor whatever they are given: a count
// (`torch.numel`), a type or flag (`torch.is_tensor`, `torch.result_type`),
// torch's state (`torch.manual_seed`, `torch.set_grad_enabled`).
bool gives_no_tensor(std::string_view qualified);
// Legacy constructors: torch.FloatTensor (false: the host), torch.cuda.*
// (true); nullopt for anything else.
std::optional<bool> legacy_type_on_cuda(std::string_view qualified);
// torch.nn's module classes (nn.Linear, not nn.functional or nn.init).
bool is_module_class(std::string_view qualified);
// A torchvision model's builder (torchvision.models.resnet50, ...).
bool is_torchvision_model(std::string_view qualified);
// A Hugging Face model's `from_pretrained` (transformers.AutoModel...,
// transformers.BertForSequenceClassification...); not a tokenizer's.
bool is_pretrained_model(std::string_view qualified);
// A method of nn.Module itself a module's method calls on `self`, never a
// submodule's forward: `load_state_dict` copies what it is given into the
// parameters wherever they are; `state_dict`, `apply`.
bool is_module_own_method(std::string_view method);
// A TorchMetrics metric (torchmetrics.Accuracy, ...): an nn.Module whose
// running state is tensors made where the metric is, the CPU until it moves.
bool is_metric_class(std::string_view qualified);
// Functions that make a NumPy array of what they are given (np.asarray
// inside): NumPy's, scikit-learn's (metrics), SciPy's, pyplot's plots,
// pandas' DataFrame and Series.
bool reads_as_numpy(std::string_view qualified);
// torchvision's conversions of an image to a tensor: a call that makes one
// (transforms.functional.to_tensor, pil_to_tensor, ToTensor()(img)) or a
// transform that will (ToTensor(), Compose([..., ToTensor()])).
enum class ImageToTensor : uint8_t { kNo, kTensor, kTransform };
ImageToTensor image_to_tensor(const Source& source, TSNode call, std::string_view qualified);
// DataParallel and DistributedDataParallel.
bool is_wrapper(std::string_view qualified);

}  // namespace devcheck::lint::detail
