#pragma once
// How the ranks of one local run find each other, as torchrun --standalone
// sets it up: rank 0's TCPStore on a free port of 127.0.0.1, a run id, and
// torchrun's variables. Torch-free.

#include <string>
#include <vector>

namespace devcheck::detail {

/// A TCP port of 127.0.0.1 that nobody listens on now (bound to 0, then
/// released for rank 0's store: the same small race torchrun accepts); 0,
/// with errno set, when none can be had. Thread-safe.
int free_port();

/// A fresh uuid4 from /dev/urandom, as torchrun --standalone names its run
/// ("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx"). Thread-safe.
std::string run_id();

/// The variables torchrun's local agent gives every rank of a one-node run
/// of `nproc` ranks with rank 0's store at 127.0.0.1:`master_port`: the
/// world sizes, group, role, MASTER_ADDR/PORT, TORCHELASTIC_* (no restarts,
/// no agent store). "NAME=value" each.
std::vector<std::string> torchrun_variables(int nproc, int master_port, const std::string& run_id);

/// The variables that name rank `rank`: RANK, LOCAL_RANK, ROLE_RANK.
std::vector<std::string> rank_variables(int rank);

}  // namespace devcheck::detail
