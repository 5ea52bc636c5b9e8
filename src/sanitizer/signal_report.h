#pragma once
// What keeps the report written in a fatal signal's handler from hanging the
// process. The handler runs on the code the signal interrupted: stopped
// inside malloc, the report (it allocates, symbolizes, writes files) waits
// for the allocator's lock that code holds, and the process never ends. A
// multiprocessing.Pool leaving its `with` block (terminate(): SIGTERM to each
// worker, which is freeing the task it just ran) hung so under `devcheck
// run`, and Pool.join() with it. Two things keep a report from that:
//
//  - put_off(): a signal another process sent (kill(): Pool.terminate(),
//    timeout, a supervisor) that interrupted the program outside a system
//    call is delivered again a millisecond later, for up to a second, until
//    it finds the program waiting in one (read, poll, a futex wait hold no
//    allocator lock). Only where the signal then ends the process by its
//    default action; where a handler of the program's own is next, it gets
//    such a signal at once, with no report first (process.cc): the program
//    decides, and the report is written at its exit.
//  - ReportDeadline: while the report is written, a timer on the reporting
//    thread checks each second that it moves (note_report_progress()); after
//    kStallSeconds without, one line on stderr says so and the process ends
//    by its signal, as it would have without devcheck.
//
// Everything here is async-signal-safe (raw system calls, atomics).
#include <signal.h>

namespace devcheck::sanitizer {

// libc's own sigaction: past the preload library's (which asks the
// sanitizer) and past any other library's (UCX defines one that refuses to
// replace its handlers). Call it once outside a handler before using it in one.
using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);
SigactionFn libc_sigaction();

// The report moved on (a step done, a line read from addr2line).
void note_report_progress();

// Whether the interrupted code (`context`, the handler's ucontext_t) was
// waiting in a system call (read, poll, a futex, a sleep, a wait for a
// child, pause): broken off with -EINTR, the program counter just past the
// instruction, or to be restarted, the counter on it and the number of such
// a call in the number register. Not a quick call that just returned (brk or
// munmap inside malloc, which hold its lock). True where the architecture is
// not known (x86-64 and AArch64 are): nothing is put off there.
bool at_system_call(const void* context);

// A fatal signal another process sent, or the second delivery of one put off,
// that interrupted the program outside a system call: delivered again in a
// millisecond (a timer for the whole process) and true: the handler returns
// without handing it on. False when it should be handled now: sent by the
// process itself (raise, abort, a fault), in a system call, put off for a
// second already, or the timer could not be set.
bool put_off(int sig, const siginfo_t* info, const void* context);

// Seconds without progress after which a report is given up.
constexpr int kStallSeconds = 10;

// Armed while a report is written in the handler of `sig` (0: at an exit
// that runs no exit hook, os._exit): when the report makes no progress for
// `stall_seconds`, writes one line on stderr and calls `end(sig)`, which ends
// the process (it must not return; if it does, the process exits with
// 128 + sig, or 1). Disarmed when it goes out of scope. One at a time in a
// process: a fatal signal's report is written once.
class ReportDeadline {
 public:
  ReportDeadline(int sig, void (*end)(int), int stall_seconds = kStallSeconds);
  ~ReportDeadline();
  ReportDeadline(const ReportDeadline&) = delete;
  ReportDeadline& operator=(const ReportDeadline&) = delete;

 private:
  int timer_ = -1;  // the kernel's timer id; -1 when none could be made
  int signal_ = 0;  // the timer's signal
  struct sigaction previous_ {};
  sigset_t saved_mask_{};
};

}  // namespace devcheck::sanitizer
