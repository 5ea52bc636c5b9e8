// A library whose initializer never returns: the thread that dlopen()s it
// holds the loader's lock for good, as a thread stuck in a library's
// initializer does. Before it stops it writes one byte to the file
// descriptor PLANTED_STUCK_FD names, so the program knows the lock is taken.
#include <unistd.h>

#include <cstdlib>

namespace {

__attribute__((constructor)) void stuck_for_good() {
  if (const char* fd = std::getenv("PLANTED_STUCK_FD")) {
    const char byte = 's';
    if (::write(std::atoi(fd), &byte, 1) != 1) std::_Exit(3);
  }
  for (;;) ::pause();
}

}  // namespace
