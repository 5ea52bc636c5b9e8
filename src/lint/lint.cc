// lint_paths and fix_paths: the files, their configuration, in parallel.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <atomic>
#include <thread>
#include <utility>

#include "checker.h"
#include "config.h"
#include "devcheck/format/error.h"
#include "devcheck/lint.h"
#include "files.h"
#include "format/output.h"
#include "notebook.h"

namespace devcheck::lint {
namespace {

struct FileResult {
  bool read = false;
  bool skipped = false;  // excluded by configuration
  bool changed = false;  // fix_paths: fixes changed the text (diff holds how)
  std::string diff;
  std::string error;
  std::vector<Finding> findings;
};

// The whole file in one buffer sized once (fstat), read with read(2).
bool read_file(const std::string& path, std::string& text) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat info {};
  bool ok = ::fstat(fd, &info) == 0 && !S_ISDIR(info.st_mode);
  text.resize(ok ? static_cast<std::size_t>(info.st_size) : 0);
  std::size_t done = 0;
  while (ok) {
    if (done == text.size()) text.resize(text.size() + 4096);  // grew, or not a regular file
    const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n >= 0;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  return ok;
}

struct Rules {
  std::vector<std::string> select;
  std::vector<std::string> ignore;
};

// The rules for one file: the options' select (else the configuration's),
// and the ignores of both.
Rules rules_for(const LintOptions& options, const detail::Config* config, const std::string& path) {
  Rules rules{options.select, options.ignore};
  if (config != nullptr) {
    if (rules.select.empty()) rules.select = config->select;
    const std::vector<std::string> more = detail::ignored_rules(*config, path);
    rules.ignore.insert(rules.ignore.end(), more.begin(), more.end());
  }
  return rules;
}

// Runs `work(path, rules, text, result)` on every file, `options.jobs` at a
// time. Each thread reads its files into one buffer it reuses: the text lives
// only while `work` runs (a fresh buffer per file costs an allocation the size
// of the file, and glibc pays for those with a pass over its free lists).
template <typename Work>
std::vector<FileResult> for_each_file(const std::vector<std::string>& files,
                                      const LintOptions& options, Work work) {
  std::vector<FileResult> results(files.size());
  unsigned jobs = options.jobs != 0 ? options.jobs : std::thread::hardware_concurrency();
  jobs = std::max(1U, std::min<unsigned>(jobs, static_cast<unsigned>(files.size())));
  detail::ConfigFinder configs;
  // With more than one thread, the largest files first: the last file a
  // thread takes is then a small one, and no thread waits long for another
  // at the end (a file in the middle of the order can be the tree's
  // largest: torch's common_methods_invocations.py is 6% of its bytes).
  // Results keep the files' order.
  std::vector<std::size_t> order(files.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (jobs > 1) {
    std::vector<off_t> sizes(files.size(), 0);
    for (std::size_t i = 0; i < files.size(); ++i) {
      struct stat info {};
      if (::stat(files[i].c_str(), &info) == 0) sizes[i] = info.st_size;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&sizes](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  }
  std::atomic<std::size_t> next{0};
  auto run = [&] {
    std::string text;
    for (std::size_t n = next++; n < files.size(); n = next++) {
      const std::size_t i = order[n];
      const detail::Config* config = options.use_config ? configs.find(files[i]) : nullptr;
      FileResult& r = results[i];
      if (config != nullptr && detail::excluded(*config, files[i])) {
        r.skipped = true;
        continue;
      }
      if (!read_file(files[i], text)) {
        r.error = files[i] + ": cannot read the file";
        continue;
      }
      r.read = true;
      const Rules rules = rules_for(options, config, files[i]);
      work(files[i], rules, std::as_const(text), r);
    }
  };
  if (jobs == 1) {
    run();
  } else {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(run);
    for (std::thread& t : threads) t.join();
  }
  return results;
}

bool fixable(const std::string& rule) {
  for (const RuleInfo& r : rules()) {
    if (r.id == rule) return r.fixable;
  }
  return false;
}

void write_atomically(const std::string& path, const std::string& text) {
  struct stat before {};
  const bool have_mode = ::stat(path.c_str(), &before) == 0;
  devcheck::detail::AtomicOutput out(path, /*overwrite=*/true);
  if (have_mode) ::fchmod(out.fd(), before.st_mode & 07777);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(out.fd(), text.data() + done, text.size() - done);
    if (n <= 0) {
      throw format::IoError("[devcheck] cannot write the fixed " + path +
                            ": the disk refused; the file "
                            "is unchanged");
    }
    done += static_cast<std::size_t>(n);
  }
  out.commit();
}

}  // namespace

LintReport lint_paths(const std::vector<std::string>& paths, const LintOptions& options) {
  LintReport report;
  std::vector<std::string> errors;
  const std::vector<std::string> files =
      detail::collect_files(paths, options.respect_gitignore, errors);
  for (std::string& e : errors) report.add_error(std::move(e));
  std::vector<FileResult> results = for_each_file(
      files, options,
      [](const std::string& path, const Rules& rules, const std::string& text, FileResult& r) {
        r.findings = detail::check_file(text, path, rules.select, rules.ignore);
      });
  for (FileResult& r : results) {
    if (!r.error.empty()) report.add_error(std::move(r.error));
    if (!r.read) continue;
    report.add_file();
    for (Finding& f : r.findings) report.add(std::move(f));
  }
  report.finish();
  return report;
}

FixResult fix_paths(const std::vector<std::string>& paths, const LintOptions& options, bool write) {
  FixResult result;
  std::vector<std::string> errors;
  const std::vector<std::string> files =
      detail::collect_files(paths, options.respect_gitignore, errors);
  for (std::string& e : errors) result.remaining.add_error(std::move(e));
  std::vector<FileResult> results = for_each_file(
      files, options,
      [&](const std::string& path, const Rules& rules, const std::string& text, FileResult& r) {
        std::vector<Finding> findings = detail::check_file(text, path, rules.select, rules.ignore);
        std::vector<Finding> to_fix;
        for (const Finding& f : findings) {
          if (f.fix && fixable(f.rule)) to_fix.push_back(f);
        }
        const std::string after = to_fix.empty() ? text : apply_fixes(text, to_fix);
        if (after == text) {
          r.findings = std::move(findings);
          return;
        }
        // What remains is what the fixed text still has.
        r.findings = detail::check_file(after, path, rules.select, rules.ignore);
        r.diff = unified_diff(path, text, after);
        r.changed = true;
        if (write) {
          try {
            write_atomically(path, after);
          } catch (const format::Error& e) {
            r.error = e.what();
            r.changed = false;
          }
        }
      });
  for (std::size_t i = 0; i < results.size(); ++i) {
    FileResult& r = results[i];
    if (!r.error.empty()) result.remaining.add_error(std::move(r.error));
    if (!r.read) continue;
    result.remaining.add_file();
    if (r.changed) {
      result.changed.push_back(files[i]);
      result.diff += r.diff;
    }
    for (Finding& f : r.findings) result.remaining.add(std::move(f));
  }
  result.remaining.finish();
  return result;
}

}  // namespace devcheck::lint
