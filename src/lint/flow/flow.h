#pragma once
// The device flow (docs/lint.md, "The device flow"): one pass over the
// statements of each scope, in order, that keeps for each name (and each
// `self.x` of a class) what is known of its value: whether it is a tensor, a
// module, a DataLoader, ..., and where it lives: on the host, on a device,
// on the device of the module whose method this is, or unknown. The rules
// read what the pass met on the way (a host tensor meeting a device one, a
// dropped move, `.numpy()` of a device tensor, ...), never the words of the
// code. Where the flow does not know, it says nothing. Internal.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "../syntax.h"

namespace devcheck::lint::detail {

enum class Kind : uint8_t {
  kUnknown,
  kNone,  // the literal None (nothing yet: a later value replaces it)
  kTensor,
  kModule,     // an nn.Module (a layer, a loss, a model of this file)
  kLoader,     // a DataLoader
  kDataset,    // a Dataset (torchvision's, TensorDataset, one of this file)
  kEncoding,   // a tokenizer's output with return_tensors="pt": a dict of tensors
  kArray,      // a NumPy array
  kList,       // a list (or tuple, dict) whose elements are `element`
  kGenerator,  // a torch.Generator: its place is its device's
};

enum class Place : uint8_t {
  kUnknown,
  kHost,
  kDevice,
  // The device of the module whose method this is: its parameters, buffers
  // and submodules, and the inputs of its forward. Wherever the module is
  // moved, these go too.
  kModuleDevice,
};

// How a value on the host got there; the rule that reports a host value
// meeting a device one depends on it.
enum class Origin : uint8_t {
  kNone,
  kFactory,        // torch.zeros(...) and the other factories, without device= (DC101)
  kNumpy,          // torch.from_numpy / as_tensor of an array (DC103)
  kAttribute,      // a plain tensor attribute of a module (DC111)
  kBatch,          // a batch a for loop took from a DataLoader (DC120)
  kDatasetItem,    // an item of a Dataset (DC120)
  kHostCopy,       // .cpu() or .to("cpu") of a tensor (DC120)
  kUnmovedModule,  // a module made in this file and never moved (DC120)
  // A tensor torchvision made from an image (ToTensor, to_tensor) (DC120);
  // on a transform that makes one, with its place unknown: the transform.
  kImage,
  // A parameter of a function no call of the file passes, given beside one
  // the function moves to a device itself: its caller hands both from the
  // host (DC120).
  kInput,
  // A module a framework moved back to the host (Lightning's trainer.fit()
  // ends so) (DC120).
  kReleased,
};

struct Value {
  Kind kind = Kind::kUnknown;
  Place place = Place::kUnknown;
  Origin origin = Origin::kNone;
  // A 0-dim tensor (torch.tensor(2.0), x.sum()): it mixes with any device.
  bool scalar = false;
  // A tensor's shape where the flow can tell it: one element (`torch.rand(1)`,
  // whose `.squeeze()` is 0-dim) or one dimension (`torch.arange(n)`, whose
  // elements are 0-dim).
  bool one_element = false;
  bool one_dim = false;
  // In page-locked memory (.pin_memory(), a batch of a DataLoader with
  // pin_memory=True); for a loader, whether its batches are.
  bool pinned = false;
  // Whether the pinning is unknown (a loader from elsewhere): say nothing.
  bool pin_unknown = false;
  // An nn.Parameter, a registered buffer or submodule (moves with its module).
  bool registered = false;
  // One sample of a batch: the variable of a loop over a batch tensor.
  bool sample = false;
  // A module `self.x` of a plain class that only other methods of the class
  // move, read in a method a call of the file reaches without them
  // (Flow::skipped_moves()).
  bool move_skipped = false;
  // Where it was made: the factory call, the from_numpy call, the `for` of
  // a batch, the module's constructor, the attribute's assignment.
  TSNode made{};
  // A module holding a tensor it was given (a loss's weight=): that tensor's
  // place and origin, where it was made, and the argument that gave it.
  Place held_place = Place::kUnknown;
  Origin held_origin = Origin::kNone;
  TSNode held_made{};
  TSNode held_argument{};
  // A function's parameter, as it came in (not assigned since).
  bool parameter = false;
  // What the file's calls pass to a parameter (a ParamHint), or made from
  // one: the value crossed a call to get here.
  bool passed = false;
  // DataParallel / DistributedDataParallel: it moves its inputs itself.
  bool scatters = false;
  // A dict of keywords that asks a diffusers pipeline for NumPy arrays or
  // PIL images (`{"output_type": "np"}`): a call given it as `**inputs`
  // gives no tensor.
  bool asks_host_output = false;
  // A module made from a class of this file: that class's scope.
  int cls = -1;
  // A function of this file as a value: a function defined in another that
  // returns it (`loss_fn = Loss().build()`, then `loss_fn(out, y)`): its
  // scope.
  int function = -1;
  // For lists (and module containers): what their elements are (all alike,
  // else unknown), how a host element got there and where it was made,
  // whether they are 0-dim, and the class of this file its modules are.
  Kind element = Kind::kUnknown;
  Place element_place = Place::kUnknown;
  Origin element_origin = Origin::kNone;
  // Its elements are 0-dim tensors (`(shift[0],)`): they mix with any device.
  bool element_scalar = false;
  TSNode element_made{};
  int element_cls = -1;
  // A dict whose keys the flow follows (a literal whose keys are all
  // strings, `{"input": x, "len": len(x)}`): what is stored under each key,
  // an index into the run's table of them (dicts.cc); -1 where the flow
  // cannot tell (a key computed, an update it does not follow).
  int keys = -1;
};

// The value of one element of a list (or module container) value.
Value element_value(const Value& list);
// Sets what a list's (or module container's) elements are to `element`.
void set_element(Value& list, const Value& element);
// A list whose elements are `element`.
Value list_of(const Value& element);

// Whether a value is a module with parameters left on the host: made there
// and never moved, or moved back there by a framework.
inline bool module_left_on_host(const Value& v) {
  return v.place == Place::kHost &&
         (v.origin == Origin::kUnmovedModule || v.origin == Origin::kReleased);
}

// Whether a value is a tensor known to be on the host (not a 0-dim one).
inline bool host_tensor(const Value& v) {
  return v.kind == Kind::kTensor && v.place == Place::kHost && !v.scalar;
}
// Whether a value is on a device (or the module's device) and may be a tensor.
inline bool device_value(const Value& v) {
  return (v.kind == Kind::kTensor || v.kind == Kind::kUnknown) && !v.scalar &&
         (v.place == Place::kDevice || v.place == Place::kModuleDevice);
}

// Whether a value is a 0-dim tensor on a device (`x.max()` of a device
// tensor): only a 0-dim tensor on the CPU mixes with any device, so this one
// meets a host tensor as any device tensor does.
inline bool device_scalar(const Value& v) {
  return v.kind == Kind::kTensor && v.scalar &&
         (v.place == Place::kDevice || v.place == Place::kModuleDevice);
}

// A tensor on the host meets one on a device: in an arithmetic operator or
// a comparison, as arguments of one torch function, as an argument of a
// module on the device (hidden states too), or a module holding a host
// tensor (a loss's weight=) is called on device tensors.
struct Meeting {
  TSNode where;    // the operator or the call
  TSNode host_at;  // the host value's expression there (or the module called)
  Value host;
  Value other;
  int scope = 0;
};

// `.numpy()` of a tensor, or a NumPy function given one.
struct NumpyRead {
  TSNode call;
  Value value;
};

// `x.to(...)`, `x.cuda(...)`, `x.cpu()`.
struct Move {
  TSNode call;
  TSNode object;
  Value value;  // of the object
  Place target = Place::kUnknown;
  bool statement = false;     // the whole statement: its result is dropped
  bool non_blocking = false;  // non_blocking=True
  // The object is one sample of a batch (a loop over the batch, or the batch
  // indexed by a loop variable).
  bool per_sample = false;
  int scope = 0;
};

// `self.x = value` in a method of a class.
struct AttributeSet {
  TSNode value;           // the right-hand side
  std::string_view name;  // "self.x"
  Value v;
  int class_scope = -1;
  int method_scope = -1;
};

// A call of a plain class's method on an object (`clf.predict(x)`) with no
// call before it, on that object, of the methods that move the module the
// method uses (`clf.fit(...)`): the method's scope and the call.
struct SkippedMove {
  int scope = -1;
  TSNode call{};
};

// `DataLoader(dataset, ...)`: the dataset's value.
struct LoaderMade {
  TSNode call;
  Value dataset;
};

// `DistributedDataParallel(model, ...)`, `DataParallel(model, ...)`.
struct Wrap {
  TSNode call;
  TSNode model;
  Value value;
};

class Flow {
 public:
  // Runs the flow over every scope of `source` (module, classes, functions).
  explicit Flow(const Source& source);

  const std::vector<Meeting>& meetings() const { return meetings_; }
  const std::vector<NumpyRead>& numpy_reads() const { return numpy_reads_; }
  const std::vector<Move>& moves() const { return moves_; }
  const std::vector<AttributeSet>& attributes() const { return attributes_; }
  const std::vector<Wrap>& wraps() const { return wraps_; }
  const std::vector<LoaderMade>& loaders() const { return loaders_; }
  const std::vector<SkippedMove>& skipped_moves() const { return skipped_moves_; }
  // Whether `name` is passed to a module (`model(x)`) in `scope`.
  bool module_input(int scope, std::string_view name) const;
  // Whether a name (`model`, `self.encoder`) is moved to a device in place
  // somewhere in the file (`model.to(device)` as a statement).
  bool moved_anywhere(std::string_view name) const;
  // Whether the file moves a module to a device (`model.to(device)`,
  // `Net().cuda()`), or hands its modules to a framework that does (a
  // LightningModule, a launcher, a Hugging Face trainer): then what is on a
  // module's device in its methods is on a device when the program runs
  // there.
  bool moves_a_module() const;

 private:
  friend class FlowRun;
  Flow() = default;
  std::vector<Meeting> meetings_;
  std::vector<NumpyRead> numpy_reads_;
  std::vector<Move> moves_;
  std::vector<AttributeSet> attributes_;
  std::vector<Wrap> wraps_;
  std::vector<LoaderMade> loaders_;
  std::vector<SkippedMove> skipped_moves_;
  // Moves in place: the scope and the name moved.
  std::vector<std::pair<int, std::string_view>> moved_;
  // A framework moves the file's modules (moves_a_module()).
  bool framework_moves_ = false;
  std::vector<std::pair<int, std::string_view>> module_inputs_;
  // Names made by the flow (`self.hparams.x`) that attributes_ views.
  std::deque<std::string> names_;
};

// Whether the uses of `name` in `scope_node` (its function) show a tensor:
// indexed with a non-string, `.shape`/`.size()`/`.dim()` read, a method only
// tensors have, an operand of arithmetic; and none shows a module (called,
// `.parameters()`, `.train()`, ...). For names the flow has no value for.
// `passed_to_module`: the flow saw it given to a module. `strict`: only what
// a number or a list never shows counts (not arithmetic, not indexing, not a
// later argument of a torch function but a loss's).
bool used_as_tensor(const Source& source, TSNode scope_node, std::string_view name,
                    bool passed_to_module = false, bool strict = false);

// Whether a class of the file (its scope) is an nn.Module with no
// parameters, buffers or submodules: it derives from nn.Module alone, its
// methods keep only plain literals in `self.x` (or parameters whose default
// is one, None aside: it may stand for a tensor) and register nothing. Where it is does not matter:
// it computes where its inputs are (a loss written as a module).
bool parameter_free_module(const Source& source, int class_scope);
// Whether a class of the file has a base from elsewhere (not torch's, nor
// the standard library's), directly or through the classes of the file it
// derives from (`class TextModel(MyPreTrainedModel)`, itself a
// `PreTrainedModel`): it may be an nn.Module the flow cannot tell.
bool foreign_base_anywhere(const Source& source, std::string_view class_name);
// Where a module class of the file (its scope) is made when its __init__
// moves it (`self.to(self.device)`, `self.cuda()`): kDevice, kUnknown where
// that move is conditional, kHost where __init__ moves nothing.
Place init_moves_self(const Source& source, int class_scope);
// A module of a class of the file just made (`Net()`, `v` on the host):
// never moved unless it has no parameters (then it computes where its inputs
// are), or made where its __init__ moves it.
void place_new_module(const Source& source, int class_scope, Value& v);

}  // namespace devcheck::lint::detail
