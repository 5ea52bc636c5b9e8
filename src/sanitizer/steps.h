#pragma once
// What a "step" of the watched program is, for the "many small copies" rule,
// and the framework's own coalesced transfers.
//
// A step ends at every backward pass (each autograd node the engine runs) and
// at every `Optimizer.step` / `Optimizer.zero_grad` (torch.optim wraps both
// in a record_function scope of that name). Copies from one site in
// different steps are never pieces of one flood: a loop that copies each
// batch once is one copy per step, however small the model between them.
//
// A coalesced transfer is a record_function scope named
// "devcheck.coalesced:<op>" (fake CUDA's torch.cuda.comm emulation opens
// one around the copies of each call): as on a GPU, where NCCL or comm moves
// them in one call, its copies count as one transfer per direction under
// <op>, at the user's line, and never as small copies.

#include <ATen/record_function.h>
#include <c10/core/Device.h>

#include <cstdint>

namespace devcheck::sanitizer {

// The number of step boundaries seen since the process started watching.
std::uint64_t step_epoch();

// The op of the coalesced transfer open on this thread, or null.
const char* coalesced_op();

// Whether a src -> dst copy is the first of its direction in the coalesced
// transfer open on this thread (it counts one transfer; the rest add their
// bytes to it). Records the direction.
bool first_of_coalesced(c10::Device src, c10::Device dst);

// The RecordFunction callback that sees steps and coalesced scopes
// (Engine::start adds it, Engine::stop removes it).
at::CallbackHandle add_step_callback();

}  // namespace devcheck::sanitizer
