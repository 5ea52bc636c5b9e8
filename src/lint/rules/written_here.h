#pragma once
// DC105's judgement of a load that reads a file the same process wrote: one
// in a temporary directory or file of its own (pytest's `tmp_path`,
// `tempfile`'s, an empty `io.BytesIO()`), or one a save of the same function
// wrote before it. Its tensors come back to devices the process has, so a
// missing map_location cannot fail there. Internal.

#include "../syntax.h"

namespace devcheck::lint::detail {

// Whether `earlier` has run whenever `later` runs, in one run of the code
// around them: it comes first, and the block holding it (past `with`, `try`
// and loop bodies, not past an `if` branch or a function) holds `later`.
bool runs_before(TSNode earlier, TSNode later);

// Whether `path`, the file argument of the torch.load `load`, lies in a
// temporary directory or file this process made: a path built (`/`,
// `os.path.join`, `str`, `.joinpath`, an f-string) from a pytest `tmp_path`,
// `tmpdir` or `*_factory` parameter of a test (`test*`) or fixture, from a
// `tempfile` directory or file (`mkdtemp()`, `TemporaryDirectory()`,
// `NamedTemporaryFile()`, held by a name, `self.x` or `with ... as`), or an
// empty `io.BytesIO()`. Not when the function copies, extracts or downloads
// into it before the load: a file from elsewhere.
bool in_own_temporary(const Source& source, const Call& load, TSNode path);

// Whether a save other than torch.save (`fabric.save(path, state)`,
// `model.save_pretrained(out_dir)`: a call whose name holds `save`) in the
// same function (or the module's code), run before the load (runs_before),
// is given the load's path or a name or attribute the path is built from
// (its directory).
bool saved_before_by_same_function(const Source& source, const Call& load, TSNode path);

// Whether `load`, saying `weights_only=False`, reads a cache its own class
// writes: a torch.save in a method of the same class writes the file (or a
// temporary one it then moves there: `shutil.move(tmp, hashfile)`,
// `os.replace`), both paths built from the same `self.x` (the cache
// directory). The class fills the cache on this machine from what it made
// here: its tensors come back to devices it has.
bool cache_of_own_class(const Source& source, const Call& load, TSNode path);

// The torch.save that wrote the file `load` reads, where another function of
// the file saved it and a caller runs the two one after the other in one
// process: the save's function and the load's build their paths from a
// parameter and the same file name (`os.path.join(root_dir,
// "best_metric_model.pth")`), and one function calls the saving one before
// (runs_before) the loading one, handing both the same argument for those
// parameters (`run_training_test(self.data_dir)`, then
// `run_inference_test(self.data_dir)`). Null where there is none.
TSNode saved_by_earlier_call(const Source& source, const Call& load, TSNode path);

}  // namespace devcheck::lint::detail
