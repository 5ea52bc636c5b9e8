#!/usr/bin/python3
"""A rank for the launcher's tests (tests/launch/launch_test.cc): no torch.

  rank_tool.py env                      print the launcher's variables
  rank_tool.py chatter LINES            many lines on stdout and stderr, written in
                                        odd-sized pieces so lines arrive split
  rank_tool.py long BYTES               BYTES of 'x' on stdout, no newline at all
  rank_tool.py behave DIR [options]     write DIR/rankK.pid, then sleep, fail or
                                        handle SIGTERM/SIGINT/SIGHUP as told (see below)
"""
import argparse
import os
import random
import signal
import sys
import time

NAMES = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
         "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_WORLD_SIZE", "ROLE_NAME", "MASTER_ADDR",
         "MASTER_PORT", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT",
         "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_USE_AGENT_STORE", "OMP_NUM_THREADS",
         "USE_LIBUV"]


def rank():
    return int(os.environ["RANK"])


def write_all(fd, data):
    while data:
        data = data[os.write(fd, data):]


def env(_):
    for name in NAMES:
        print(f"{name}={os.environ.get(name, '<unset>')}")
    print(f"stdin={os.read(0, 10)!r}")


def token():
    return "abcdefghij"[rank()] * 3


def chatter(args):
    rng = random.Random(rank())
    for fd, tag in ((1, "o"), (2, "e")):
        text = "".join((token() + tag) * rng.randint(1, 400) + "\n" for _ in range(args.lines))
        data = text.encode()
        while data:  # odd pieces, so the launcher sees partial lines
            n = rng.randint(1, 5000)
            write_all(fd, data[:n])
            data = data[n:]


def long_line(args):
    write_all(1, b"x" * args.bytes)


def behave(args):
    me = rank()
    path = os.path.join(args.dir, f"rank{me}")

    handled = []

    def on_signal(signo, _frame):
        # The launcher signals the rank's process group and then the rank:
        # when the rank runs between the two kills, the second call comes
        # while the first is still writing (nested, at a bytecode boundary).
        # The first signal is the one recorded.
        if handled:
            return
        handled.append(signo)
        with open(path + ".signal.tmp", "w") as f:
            f.write(f"{signal.Signals(signo).name} {time.time():.6f}\n")
        os.rename(path + ".signal.tmp", path + ".signal")
        if not args.ignore:
            os._exit(128 + signo)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGHUP, on_signal)
    with open(path + ".pid.tmp", "w") as f:
        f.write(str(os.getpid()))
    os.rename(path + ".pid.tmp", path + ".pid")
    if me == args.fail_rank:
        time.sleep(args.after)
        with open(path + ".failed.tmp", "w") as f:
            f.write(f"{time.time():.6f}\n")
        os.rename(path + ".failed.tmp", path + ".failed")
        print(f"rank {me} fails now ({args.how})", flush=True)
        if args.how == "kill9":
            os.kill(os.getpid(), signal.SIGKILL)
        os._exit(int(args.how.removeprefix("exit")))
    print(f"rank {me} sleeps", flush=True)
    deadline = time.time() + args.sleep
    while time.time() < deadline:
        time.sleep(0.05)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("env").set_defaults(run=env)
    p = sub.add_parser("chatter")
    p.add_argument("lines", type=int)
    p.set_defaults(run=chatter)
    p = sub.add_parser("long")
    p.add_argument("bytes", type=int)
    p.set_defaults(run=long_line)
    p = sub.add_parser("behave")
    p.add_argument("dir")
    p.add_argument("--fail-rank", type=int, default=-1)
    p.add_argument("--how", default="kill9", help="kill9 or exitN")
    p.add_argument("--after", type=float, default=0.5, help="seconds before failing")
    p.add_argument("--ignore", action="store_true", help="record SIGTERM/SIGINT/SIGHUP, keep going")
    p.add_argument("--sleep", type=float, default=60)
    p.set_defaults(run=behave)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
