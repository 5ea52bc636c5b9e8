#pragma once
// Turns the engine's raw records (site ids, devices) into SanitizerReport's
// findings with symbolized sites, and formats them.

#include <string>
#include <utility>
#include <vector>

#include "devcheck/format/units.h"
#include "devcheck/sanitizer.h"
#include "sanitizer/engine.h"

namespace devcheck::sanitizer {

SanitizerFinding make_mismatch_finding(const MismatchRecord& record);
// Every ledger entry that is a "many small copies" finding, with its site.
std::vector<std::pair<SanitizerFinding, SiteId>> make_copy_findings(const Engine& engine);
SanitizerReport build_report(const Engine& engine);

// Writes `body` to `path` through a temporary file and a rename, so a failed
// write leaves no partial file. Throws IoError naming `what` and `path`.
void write_file_atomically(const std::string& path, const std::string& body, const char* what);

// "12 B", "3.0 KiB", "2.3 MiB": the one byte formatter, the format layer's.
using format::format_bytes;

}  // namespace devcheck::sanitizer
