#include "launch/relay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace devcheck::detail {
namespace {

// The write end of the newest SignalPipe; the handler is async-signal-safe.
int g_signal_pipe = -1;

void on_signal(int signo, siginfo_t* info, void* /*context*/) {
  const int saved = errno;
  const SignalRecord record{signo, info != nullptr ? info->si_pid : 0};
  [[maybe_unused]] const ssize_t n = ::write(g_signal_pipe, &record, sizeof(record));
  errno = saved;
}

}  // namespace

SignalPipe::SignalPipe() {
  if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  g_signal_pipe = fds_[1];
  struct sigaction action {};
  action.sa_sigaction = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART | SA_NOCLDSTOP | SA_SIGINFO;
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    ::sigaction(kSignals[i], &action, &previous_[i]);
  }
}

SignalPipe::~SignalPipe() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i) {
    ::sigaction(kSignals[i], &previous_[i], nullptr);
  }
  g_signal_pipe = -1;
  ::close(fds_[0]);
  ::close(fds_[1]);
}

LineRelay::LineRelay(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

void LineRelay::feed(const char* data, std::size_t size, const std::string& prefix,
                     std::string& sink) {
  while (size > 0) {
    const char* newline = static_cast<const char*>(std::memchr(data, '\n', size));
    const std::size_t take = newline != nullptr ? static_cast<std::size_t>(newline - data) : size;
    const std::size_t room = max_line_bytes_ - pending_.size();
    if (take > room) {  // a line this long is cut where the cap falls
      pending_.append(data, room);
      emit(prefix, sink);
      data += room;
      size -= room;
      continue;
    }
    pending_.append(data, take);
    if (newline == nullptr) return;
    emit(prefix, sink);
    data += take + 1;
    size -= take + 1;
  }
}

void LineRelay::finish(const std::string& prefix, std::string& sink) {
  if (!pending_.empty()) emit(prefix, sink);
}

void LineRelay::emit(const std::string& prefix, std::string& sink) {
  sink += prefix;
  sink += pending_;
  sink += '\n';
  pending_.clear();
}

}  // namespace devcheck::detail
