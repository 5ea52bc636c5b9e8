#pragma once
// DC105's judgement of a load that reads a file holding host values alone:
// one the same file writes from what it made on the host (a dataset's
// processed files, a class's own state), one every writer in the file fills
// from `.cpu()` tensors, or one the loading function declares a numpy array.
// A missing map_location cannot fail there. Internal.

#include <string_view>
#include <vector>

#include "../syntax.h"

namespace devcheck::lint::detail {

// The file argument of torch.save (`position` 1) or torch.load (0): `f=`,
// else the positional one; null where neither.
TSNode file_argument(const Source& source, TSNode call, std::size_t position);

// The names a path is built from: identifiers and attribute chains
// (`self.data_file`), and for a name assigned in `scope`, those of the values
// it was given (`file = os.path.join(root, META_FILE)`), a few levels deep.
// With `callee_only`, a call gives the names of what it calls alone (what
// `parse_meta(root)` returns is made by it, not handed in).
void path_words(const Source& source, TSNode node, int scope, std::vector<std::string_view>& words,
                bool callee_only = false, int depth = 0);

// What a torch.save writes to: its file argument, or `X` for the `f` of an
// enclosing `with open(X, "wb") as f:`.
TSNode written_path(const Source& source, TSNode save);

// Whether `load` reads a file this file writes itself from what it made
// there, in a file that puts nothing on a device (torchvision's PhotoTour:
// `torch.save(dataset, f)` in `with open(self.data_file, "wb") as f`, then
// `torch.load(self.data_file)`): both paths name the same `self.x` or
// module-level name, and what is saved does not come from the saving
// function's parameters (a model handed in may be on a GPU).
bool written_here_on_host(const Source& source, const Call& load);

// Whether `load` reads a file that a function of the file writes when the
// loading function hands it the load's path (`create_random_text_data(
// input_file_text, ...)`, then `torch.load(input_file_text)`), in a file
// that puts nothing on a device, saving what it made itself.
bool written_by_called_function_on_host(const Source& source, const Call& load);

// Whether `load`, in a method of a class, reads back the state its own class
// saves, where every torch.save of the class writes `self.x`s that only ever
// hold numbers, strings, lists and dicts of them, or tensors after `.cpu()`
// (speechbrain's schedulers).
bool reads_own_class_state(const Source& source, const Call& load);

// Whether `load` reads a file every torch.save of the file writing that path
// fills with host values: the same path expression (`os.path.join(
// class_tmpdir, "output.pt")`, through the names holding it) naming a file
// (a string with a '.'), each such save writing `x.cpu()`, `.numpy()`,
// `.tolist()`, `.item()`, literals, or a dict, list or tuple of them.
bool saved_from_host(const Source& source, const Call& load);

// Whether `load`, saying `weights_only=` explicitly, is returned (as it is,
// or a name holding it, or a method call on that name) by a function whose
// return annotation is `numpy.ndarray`: the file holds a numpy array, no
// tensors to map.
bool returned_as_numpy(const Source& source, const Call& load);

}  // namespace devcheck::lint::detail
