"""A mismatch in a child multiprocessing starts with the start method given
(fork, forkserver, spawn); the parent runs no op of its own before."""
import multiprocessing
import sys

import torch


def child():
    try:
        torch.ones(3, device="meta") + torch.ones(3)  # MARK:mp_child_op
    except (RuntimeError, NotImplementedError):
        pass


if __name__ == "__main__":
    process = multiprocessing.get_context(sys.argv[1]).Process(target=child)
    process.start()
    process.join()
    print("child exit", process.exitcode)
    sys.exit(process.exitcode)
