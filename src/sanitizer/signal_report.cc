#include "sanitizer/signal_report.h"

#include <dlfcn.h>
#include <gnu/lib-names.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>

namespace devcheck::sanitizer {
namespace {

// sigev_value of the two timers: their signals are told from any other.
constexpr int kWatchMark = 0x64637764;   // "dcwd"
constexpr int kPutOffMark = 0x6463706f;  // "dcpo"

constexpr long kNanosPerSecond = 1000L * 1000 * 1000;
constexpr long kTickNanos = kNanosPerSecond;              // the deadline's check
constexpr long kPutOffNanos = 1000L * 1000;               // a put-off signal comes again after
constexpr long long kPutOffLimitNanos = kNanosPerSecond;  // and is put off no longer than

std::atomic<unsigned> g_progress{0};

long long monotonic_nanos() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * kNanosPerSecond + t.tv_nsec;
}

// A POSIX timer through the system calls themselves (glibc's timer_create
// is not async-signal-safe): `signo` with `mark` as its value, to the thread
// `tid`, or to the process when `tid` is 0. The kernel's id, or -1.
int make_timer(int signo, int mark, pid_t tid) {
  struct sigevent ev {};
  ev.sigev_value.sival_int = mark;
  ev.sigev_signo = signo;
  if (tid != 0) {
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev._sigev_un._tid = tid;
  } else {
    ev.sigev_notify = SIGEV_SIGNAL;
  }
  int id = -1;  // the kernel's timer_t is an int
  if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id) != 0) return -1;
  return id;
}

bool set_timer(int id, long first_nanos, long every_nanos) {
  itimerspec spec{};
  spec.it_value.tv_sec = first_nanos / kNanosPerSecond;
  spec.it_value.tv_nsec = first_nanos % kNanosPerSecond;
  spec.it_interval.tv_sec = every_nanos / kNanosPerSecond;
  spec.it_interval.tv_nsec = every_nanos % kNanosPerSecond;
  return syscall(SYS_timer_settime, id, 0, &spec, nullptr) == 0;
}

// Deleting a timer also drops its signal if one is pending.
void delete_timer(int id) { syscall(SYS_timer_delete, id); }

// ---- The deadline ---------------------------------------------------------

struct Watch {
  std::atomic<bool> armed{false};
  int sig = 0;
  void (*end)(int) = nullptr;
  int stall_seconds = kStallSeconds;
  unsigned seen = 0;             // g_progress at the last tick
  int still = 0;                 // ticks since it last moved
  struct sigaction previous {};  // the program's action for the timer's signal
};
Watch g_watch;

// Appends `text` to buf[0..size) at `at`; returns the new end.
std::size_t append(char* buf, std::size_t size, std::size_t at, const char* text) {
  while (*text != '\0' && at + 1 < size) buf[at++] = *text++;
  buf[at] = '\0';
  return at;
}

std::size_t append_number(char* buf, std::size_t size, std::size_t at, int n) {
  char digits[16];
  int i = 0;
  unsigned u = n < 0 ? 0U : static_cast<unsigned>(n);
  do {
    digits[i++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0 && i < 15);
  while (i > 0 && at + 1 < size) buf[at++] = digits[--i];
  buf[at] = '\0';
  return at;
}

void say_given_up(int sig, int seconds) {
  char line[320];
  std::size_t n = 0;
  if (sig == 0) {
    n = append(line, sizeof line, n, "[devcheck] sanitizer: the report at exit");
  } else {
    n = append(line, sizeof line, n, "[devcheck] sanitizer: the report at signal SIG");
    const char* name = sigabbrev_np(sig);
    n = name != nullptr ? append(line, sizeof line, n, name)
                        : append_number(line, sizeof line, n, sig);
  }
  n = append(line, sizeof line, n, " is not written: it made no progress for ");
  n = append_number(line, sizeof line, n, seconds);
  n = append(line, sizeof line, n,
             sig == 0 ? " s (a lock it needs is held, by a thread of the parent this process "
                        "was forked from or by another thread); the process exits\n"
                      : " s (the signal stopped the program where it held a lock the report "
                        "needs); the process ends by the signal\n");
  std::size_t done = 0;
  while (done < n) {
    const ssize_t w = write(STDERR_FILENO, line + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += static_cast<std::size_t>(w);
  }
}

void on_watch_tick(int signo, siginfo_t* info, void* context) {
  if (!g_watch.armed.load() || info == nullptr || info->si_code != SI_TIMER ||
      info->si_value.sival_int != kWatchMark) {
    // Not the deadline's: the program's own use of the signal.
    const struct sigaction& p = g_watch.previous;
    if ((p.sa_flags & SA_SIGINFO) != 0 && p.sa_sigaction != nullptr) {
      p.sa_sigaction(signo, info, context);
    } else if ((p.sa_flags & SA_SIGINFO) == 0 && p.sa_handler != SIG_DFL &&
               p.sa_handler != SIG_IGN) {
      p.sa_handler(signo);
    }
    return;
  }
  const int saved_errno = errno;
  const unsigned now = g_progress.load(std::memory_order_relaxed);
  if (now != g_watch.seen) {
    g_watch.seen = now;
    g_watch.still = 0;
  } else if (++g_watch.still >= g_watch.stall_seconds) {
    g_watch.armed.store(false);
    const int sig = g_watch.sig;
    say_given_up(sig, g_watch.stall_seconds);
    if (g_watch.end != nullptr) g_watch.end(sig);
    _exit(sig == 0 ? 1 : 128 + sig);
  }
  errno = saved_errno;
}

// ---- Putting a signal off -------------------------------------------------

struct PutOff {
  std::atomic<pid_t> pid{0};  // the process the timer belongs to (a forked child has none)
  std::atomic<int> timer{-1};
  std::atomic<long long> since{0};  // when it was first put off
};
PutOff g_put_off[NSIG];

}  // namespace

SigactionFn libc_sigaction() {
  static const SigactionFn fn = [] {
    void* libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
    void* sym = libc != nullptr ? dlsym(libc, "sigaction") : nullptr;
    return sym != nullptr ? reinterpret_cast<SigactionFn>(sym) : &::sigaction;
  }();
  return fn;
}

void note_report_progress() { g_progress.fetch_add(1, std::memory_order_relaxed); }

namespace {

// The system calls a thread waits in (for input, a lock's futex, a child, a
// timer, a signal): whoever is stopped in one of them holds no allocator or
// loader lock for the call. Not brk, mmap, munmap, madvise, open: glibc's
// malloc and the loader make those holding their locks.
bool waits(long number) {
  switch (number) {
#ifdef SYS_restart_syscall
    case SYS_restart_syscall:
#endif
#ifdef SYS_futex
    case SYS_futex:
#endif
#ifdef SYS_read
    case SYS_read:
#endif
#ifdef SYS_readv
    case SYS_readv:
#endif
#ifdef SYS_recvfrom
    case SYS_recvfrom:
#endif
#ifdef SYS_recvmsg
    case SYS_recvmsg:
#endif
#ifdef SYS_accept
    case SYS_accept:
#endif
#ifdef SYS_accept4
    case SYS_accept4:
#endif
#ifdef SYS_poll
    case SYS_poll:
#endif
#ifdef SYS_ppoll
    case SYS_ppoll:
#endif
#ifdef SYS_select
    case SYS_select:
#endif
#ifdef SYS_pselect6
    case SYS_pselect6:
#endif
#ifdef SYS_epoll_wait
    case SYS_epoll_wait:
#endif
#ifdef SYS_epoll_pwait
    case SYS_epoll_pwait:
#endif
#ifdef SYS_nanosleep
    case SYS_nanosleep:
#endif
#ifdef SYS_clock_nanosleep
    case SYS_clock_nanosleep:
#endif
#ifdef SYS_wait4
    case SYS_wait4:
#endif
#ifdef SYS_waitid
    case SYS_waitid:
#endif
#ifdef SYS_pause
    case SYS_pause:
#endif
#ifdef SYS_rt_sigsuspend
    case SYS_rt_sigsuspend:
#endif
#ifdef SYS_rt_sigtimedwait
    case SYS_rt_sigtimedwait:
#endif
      return true;
    default:
      return false;
  }
}

}  // namespace

bool at_system_call(const void* context) {
  if (context == nullptr) return true;
  const auto* uc = static_cast<const ucontext_t*>(context);
  constexpr std::uintptr_t kPage = 4096;  // the smallest page: both reads stay on pc's
  // A wait the signal broke off returns -EINTR, the pc just past the call; a
  // call the kernel restarts has the pc back on it and its number (or
  // restart_syscall's) in the number register. A quick call that just
  // returned (brk inside malloc) has neither.
#if defined(__x86_64__)
  const auto pc = static_cast<std::uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  const long result = uc->uc_mcontext.gregs[REG_RAX];
  const auto is_syscall = [](std::uintptr_t at) {  // 0f 05
    unsigned char bytes[2];
    std::memcpy(bytes, reinterpret_cast<const void*>(at),  // NOLINT(performance-no-int-to-ptr)
                sizeof bytes);
    return bytes[0] == 0x0f && bytes[1] == 0x05;
  };
  return (result == -EINTR && pc % kPage >= 2 && is_syscall(pc - 2)) ||
         (waits(result) && pc % kPage <= kPage - 2 && is_syscall(pc));
#elif defined(__aarch64__)
  const auto pc = static_cast<std::uintptr_t>(uc->uc_mcontext.pc);
  const auto result = static_cast<long>(uc->uc_mcontext.regs[0]);
  const auto number = static_cast<long>(uc->uc_mcontext.regs[8]);
  const auto is_svc = [](std::uintptr_t at) {  // svc #0
    std::uint32_t insn = 0;
    std::memcpy(&insn, reinterpret_cast<const void*>(at),  // NOLINT(performance-no-int-to-ptr)
                sizeof insn);
    return insn == 0xd4000001U;
  };
  return (result == -EINTR && pc % kPage >= 4 && is_svc(pc - 4)) || (waits(number) && is_svc(pc));
#else
  static_cast<void>(uc);
  static_cast<void>(kPage);
  return true;
#endif
}

bool put_off(int sig, const siginfo_t* info, const void* context) {
  if (info == nullptr || sig <= 0 || sig >= NSIG) return false;
  const pid_t me = getpid();
  PutOff& p = g_put_off[sig];
  const bool again =
      info->si_code == SI_TIMER && info->si_value.sival_int == kPutOffMark && p.pid.load() == me;
  const bool sent = (info->si_code == SI_USER || info->si_code == SI_QUEUE) && info->si_pid != me;
  if ((!again && !sent) || at_system_call(context)) return false;
  const long long now = monotonic_nanos();
  if (p.pid.load() != me) {
    const int timer = make_timer(sig, kPutOffMark, 0);
    if (timer < 0) return false;
    p.timer.store(timer);
    p.since.store(now);
    p.pid.store(me);
  }
  if (now - p.since.load() > kPutOffLimitNanos) return false;
  return set_timer(p.timer.load(), kPutOffNanos, 0);
}

ReportDeadline::ReportDeadline(int sig, void (*end)(int), int stall_seconds)
    : signal_(SIGRTMAX - 1) {
  g_watch.sig = sig;
  g_watch.end = end;
  g_watch.stall_seconds = stall_seconds > 0 ? stall_seconds : 1;
  g_watch.seen = g_progress.load();
  g_watch.still = 0;
  struct sigaction tick {};
  tick.sa_sigaction = on_watch_tick;
  tick.sa_flags = SA_SIGINFO | SA_RESTART;  // the report's reads and writes carry on
  sigemptyset(&tick.sa_mask);
  if (libc_sigaction()(signal_, &tick, &previous_) != 0) {
    signal_ = 0;
    return;
  }
  g_watch.previous = previous_;
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, signal_);
  pthread_sigmask(SIG_UNBLOCK, &one, &saved_mask_);
  timer_ = make_timer(signal_, kWatchMark, static_cast<pid_t>(syscall(SYS_gettid)));
  g_watch.armed.store(timer_ >= 0);
  if (timer_ >= 0 && !set_timer(timer_, kTickNanos, kTickNanos)) {
    g_watch.armed.store(false);
    delete_timer(timer_);
    timer_ = -1;
  }
}

ReportDeadline::~ReportDeadline() {
  if (signal_ == 0) return;
  g_watch.armed.store(false);
  if (timer_ >= 0) delete_timer(timer_);
  pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
  libc_sigaction()(signal_, &previous_, nullptr);
}

}  // namespace devcheck::sanitizer
