#pragma once
// An output file that appears whole or not at all: written to a temporary
// file in the same folder and renamed on commit(); removed if never committed.
// Not thread-safe per object.

#include <string>

#include "devcheck/export.h"

namespace devcheck::detail {

class DEVCHECK_API AtomicOutput {
 public:
  // Creates the temporary file. Throws IoError naming `path` when the folder
  // is missing or not writable, or (without `overwrite`) when `path` exists.
  AtomicOutput(std::string path, bool overwrite);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Empties the temporary file and puts its offset back at 0, to write it
  // again from the start. Throws IoError.
  void truncate();
  // Closes and renames the temporary file onto `path` (never replacing a file
  // created meanwhile unless `overwrite`). Throws IoError.
  void commit();

 private:
  std::string path_;
  std::string temp_;
  bool overwrite_;
  int fd_ = -1;
  bool committed_ = false;
};

// Whether `a` and `b` name the same existing file.
bool same_file(const std::string& a, const std::string& b);

}  // namespace devcheck::detail
