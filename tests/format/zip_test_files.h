#pragma once
// Small zips written with devcheck's ZipWriter, for the zip reader's and
// writer's tests.
#include <fcntl.h>
#include <unistd.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/zip_writer.h"

namespace devcheck::detail {

// archive/data.pkl, archive/data/0 ("0123456789abcdef") and archive/version,
// with zip64 extra fields when `zip64`.
inline void write_zip(const std::string& path, bool zip64) {
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  ZipWriter w(fd, path);
  w.force_zip64(zip64);
  w.add("archive/data.pkl", std::string_view("\x80\x02}q\x00."));
  w.add("archive/data/0", std::string_view("0123456789abcdef"));
  w.add("archive/version", std::string_view("3\n"));
  w.finish();
  ::close(fd);
}

// A stored zip of these records, in this order.
inline void write_records(const std::string& path,
                          const std::vector<std::pair<std::string, std::string>>& records) {
  const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
  ZipWriter w(fd, path);
  for (const auto& [name, bytes] : records) w.add(name, bytes);
  w.finish();
  ::close(fd);
}

}  // namespace devcheck::detail
