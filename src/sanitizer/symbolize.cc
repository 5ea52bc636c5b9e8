#include "sanitizer/symbolize.h"

#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "process/child.h"
#include "process/environment.h"
#include "sanitizer/signal_report.h"

namespace devcheck::sanitizer {
namespace {

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::vector<std::string> addr2line_command(const std::string& module) {
  return {"addr2line", "-C", "-f", "-i", "-a", "-e", module};
}

// Without LD_PRELOAD: addr2line must not get the preload library (it would
// only slow it down) nor start a sanitizer.
std::vector<std::string> addr2line_environment() {
  return detail::environment_without({"LD_PRELOAD="});
}

std::string hex(std::uintptr_t offset) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%lx", static_cast<unsigned long>(offset));
  return buf;
}

// One addr2line per module, kept running while the process lives: it reads
// the module's debug information once and answers every later report at
// once. Newer binutils read a LibTorch-sized test program's for seconds on
// each start (2.0-2.5 s with 2.44 and 2.47, 0.24 s with 2.40), which a
// report that ran addr2line afresh paid every time.
struct Servers {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<detail::Coprocess>> by_module;
};
Servers& servers() {
  static auto* servers = new Servers;  // never destroyed: reports run at exit too
  return *servers;
}

// Asked after each batch of addresses: it names no code, so addr2line
// answers "??" and "??:0" after echoing it, and the batch's answer is whole.
constexpr std::string_view kEndOfBatch = "0xffffffffffffffff";
// Addresses per request: the answer is read before the next batch is
// written, so neither side fills the socket while the other waits.
constexpr std::size_t kBatch = 64;
constexpr int kAnswerTimeoutMs = 120000;

// addr2line's answer for `offsets` from the module's server: false (and the
// server stopped) when it cannot start or does not answer.
bool ask_server(const std::string& module, const std::vector<std::uintptr_t>& offsets,
                std::vector<std::string>& lines) {
  std::lock_guard<std::mutex> lock(servers().mutex);
  auto& server = servers().by_module[module];
  if (!server || !server->usable()) {
    // A forked child's copy of its parent's server is closed, not used.
    server = std::make_unique<detail::Coprocess>();
    if (!server->start(addr2line_command(module), addr2line_environment())) {
      server.reset();
      return false;
    }
  }
  const auto fail = [&] {
    server->stop();
    server.reset();
    return false;
  };
  for (std::size_t first = 0; first < offsets.size(); first += kBatch) {
    std::string request;
    for (std::size_t i = first; i < std::min(offsets.size(), first + kBatch); ++i) {
      request += hex(offsets[i]);
      request += '\n';
    }
    request += kEndOfBatch;
    request += '\n';
    if (!server->write(request)) return fail();
    std::string line;
    for (;;) {
      if (!server->read_line(line, kAnswerTimeoutMs, note_report_progress)) return fail();
      note_report_progress();  // a report written at a signal is not stalled (signal_report.h)
      if (line == kEndOfBatch) break;
      lines.push_back(line);
    }
    // The end marker's function and place.
    if (!server->read_line(line, kAnswerTimeoutMs, note_report_progress) ||
        !server->read_line(line, kAnswerTimeoutMs, note_report_progress)) {
      return fail();
    }
  }
  return true;
}

std::vector<std::string> split_lines(const std::string& out) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    lines.push_back(out.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// Runs addr2line on one module (its server, else once for these addresses);
// returns one inline chain per address.
std::vector<std::vector<Frame>> run_addr2line(const std::string& module,
                                              const std::vector<std::uintptr_t>& offsets) {
  std::vector<std::vector<Frame>> chains(offsets.size());
  std::vector<std::string> lines;
  if (!ask_server(module, offsets, lines)) {
    lines.clear();
    std::vector<std::string> args = addr2line_command(module);
    for (auto off : offsets) args.push_back(hex(off));
    lines = split_lines(detail::run_capturing_stdout(args, addr2line_environment()).out);
  }
  // Output: "0xADDR", then (function, file:line) pairs, innermost inline first.
  int index = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (starts_with(lines[i], "0x")) {
      ++index;
      continue;
    }
    if (index < 0 || index >= static_cast<int>(chains.size()) || i + 1 >= lines.size()) break;
    Frame f;
    f.function = lines[i] == "??" ? "" : lines[i];
    std::string where = lines[++i];
    const auto disc = where.find(" (discriminator");
    if (disc != std::string::npos) where.resize(disc);
    const auto colon = where.rfind(':');
    if (colon != std::string::npos) {
      f.file = where.substr(0, colon);
      f.line = std::atoi(where.c_str() + colon + 1);
      if (f.file == "??") f.file.clear();
    }
    f.module = module;
    chains[static_cast<size_t>(index)].push_back(std::move(f));
  }
  return chains;
}

bool is_exec_type(const void* base) {
  const auto* header = static_cast<const Elf64_Ehdr*>(base);
  return header != nullptr && header->e_type == ET_EXEC;
}

std::mutex& cache_mutex() {
  static auto* m = new std::mutex;
  return *m;
}
std::unordered_map<void*, std::vector<Frame>>& cache() {
  static auto* c = new std::unordered_map<void*, std::vector<Frame>>;
  return *c;
}

std::string frame_text(const Frame& f) {
  std::string text = f.function.empty() ? "??" : f.function;
  if (!f.file.empty()) {
    text += " at " + f.file + ":" + std::to_string(f.line);
  } else {
    text += " in " + base_name(f.module);
  }
  return text;
}

}  // namespace

bool is_library_module(const std::string& module) {
  const std::string name = base_name(module);
  static const char* const kPrefixes[] = {
      "libtorch",    "libc10",     "libdevcheck", "libc.so",   "libc-",     "libstdc++",
      "libgcc_s",    "libgomp",    "ld-linux",    "libpython", "python3",   "libm.so",
      "libpthread",  "_C.cpython", "libshm",      "libcaffe2", "libdnnl",   "libmkl",
      "libopenblas", "libblas",    "libcuda",     "libcudart", "libcublas", "libcudnn",
      "libnccl",     "libgloo",    "libprotobuf", "libtsan",   "libasan",   "libubsan"};
  for (const char* p : kPrefixes) {
    if (starts_with(name, p)) return true;
  }
  return false;
}

bool is_library_source(const std::string& file) {
  static const char* const kParts[] = {
      "/ATen/",          "/c10/", "/torch/csrc/",      "/torch/include/",
      "/include/torch/", "/c++/", "include/devcheck/", "/caffe2/",
      "/bits/"};
  for (const char* p : kParts) {
    if (file.find(p) != std::string::npos) return true;
  }
  return false;
}

std::vector<Frame> symbolize(const std::vector<void*>& pcs) {
  // Group the unknown pcs by module, run addr2line once per module.
  struct Pending {
    std::vector<void*> pcs;
    std::vector<std::uintptr_t> offsets;
  };
  std::map<std::string, Pending> pending;
  {
    std::lock_guard<std::mutex> lock(cache_mutex());
    for (void* pc : pcs) {
      if (cache().count(pc) != 0) continue;
      Dl_info info{};
      if (dladdr(pc, &info) == 0 || info.dli_fbase == nullptr) {
        cache()[pc] = {Frame{"", "", 0, "??", false}};
        continue;
      }
      std::string module = info.dli_fname != nullptr ? info.dli_fname : "";
      if (module.empty() || access(module.c_str(), R_OK) != 0) module = "/proc/self/exe";
      if (is_library_module(module)) {
        Frame f;
        f.function = info.dli_sname != nullptr ? info.dli_sname : "";
        f.module = module;
        cache()[pc] = {f};
        continue;
      }
      // Return addresses point after the call; look up the call itself.
      const auto address = reinterpret_cast<std::uintptr_t>(pc) - 1;
      const auto offset = is_exec_type(info.dli_fbase)
                              ? address
                              : address - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
      auto& p = pending[module];
      p.pcs.push_back(pc);
      p.offsets.push_back(offset);
    }
  }
  for (auto& [module, p] : pending) {
    auto chains = run_addr2line(module, p.offsets);
    std::lock_guard<std::mutex> lock(cache_mutex());
    for (size_t i = 0; i < p.pcs.size(); ++i) {
      auto& chain = chains[i];
      if (chain.empty()) chain.push_back(Frame{"", "", 0, module, false});
      for (auto& f : chain) f.user = !f.file.empty() && !is_library_source(f.file);
      cache()[p.pcs[i]] = chain;
    }
  }
  std::vector<Frame> frames;
  std::lock_guard<std::mutex> lock(cache_mutex());
  for (void* pc : pcs) {
    const auto& chain = cache()[pc];
    frames.insert(frames.end(), chain.begin(), chain.end());
  }
  return frames;
}

SiteText describe_site(SiteId id) {
  SiteText text;
  const Site site = sites().get(id);
  if (!site.python.empty()) {
    // Inside Python the native frames are the interpreter's and LibTorch's.
    text.location = site.python;
    text.stack.push_back(site.python);
    return text;
  }
  if (site.pcs.empty()) return text;
  const auto frames = symbolize(site.pcs);
  for (const auto& f : frames) {
    if (!f.user) continue;
    if (text.location.empty()) text.location = base_name(f.file) + ":" + std::to_string(f.line);
    if (text.stack.size() < 8) text.stack.push_back(frame_text(f));
  }
  return text;
}

}  // namespace devcheck::sanitizer
