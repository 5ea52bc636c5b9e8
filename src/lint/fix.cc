// Applying fixes and showing them as a unified diff.
#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "devcheck/lint.h"

namespace devcheck::lint {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    const std::size_t stop = end == std::string_view::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, stop - start));
    start = stop;
  }
  return lines;
}

std::string hunk_range(std::size_t start, std::size_t count) {
  // Unified diffs number an empty range by the line before it.
  if (count == 0) return fmt::format("{},0", start);
  return count == 1 ? fmt::format("{}", start + 1) : fmt::format("{},{}", start + 1, count);
}

void add_line(std::string& out, char mark, std::string_view line) {
  out += mark;
  out += line;
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string apply_fixes(std::string_view source, const std::vector<Finding>& findings) {
  // Whole fixes, sorted by where they start; one that overlaps an earlier
  // fix is left for another run.
  std::vector<const Fix*> fixes;
  for (const Finding& f : findings) {
    if (f.fix && !f.fix->edits.empty()) fixes.push_back(&*f.fix);
  }
  std::sort(fixes.begin(), fixes.end(), [](const Fix* a, const Fix* b) {
    return a->edits.front().start_byte < b->edits.front().start_byte;
  });
  std::vector<Edit> edits;
  std::size_t covered = 0;
  bool any = false;
  for (const Fix* fix : fixes) {
    std::size_t lo = source.size();
    std::size_t hi = 0;
    for (const Edit& e : fix->edits) {
      lo = std::min(lo, e.start_byte);
      hi = std::max(hi, e.end_byte);
    }
    if ((any && lo < covered) || hi > source.size()) continue;
    edits.insert(edits.end(), fix->edits.begin(), fix->edits.end());
    covered = std::max(covered, hi);
    any = true;
  }
  std::stable_sort(edits.begin(), edits.end(),
                   [](const Edit& a, const Edit& b) { return a.start_byte < b.start_byte; });
  std::string out;
  std::size_t at = 0;
  for (const Edit& e : edits) {
    if (e.start_byte < at) continue;
    out.append(source.substr(at, e.start_byte - at));
    out += e.content;
    at = e.end_byte;
  }
  out.append(source.substr(at));
  return out;
}

std::string unified_diff(const std::string& path, std::string_view before, std::string_view after) {
  if (before == after) return {};
  const std::vector<std::string_view> a = split_lines(before);
  const std::vector<std::string_view> b = split_lines(after);
  // Fixes change lines in place, so the files share a prefix and suffix
  // around each change; diff line by line with a longest-common-subsequence
  // table over the part that differs.
  std::size_t prefix = 0;
  while (prefix < a.size() && prefix < b.size() && a[prefix] == b[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < a.size() - prefix && suffix < b.size() - prefix &&
         a[a.size() - 1 - suffix] == b[b.size() - 1 - suffix]) {
    ++suffix;
  }
  const std::size_t n = a.size() - prefix - suffix;
  const std::size_t m = b.size() - prefix - suffix;
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      lcs[i][j] = a[prefix + i] == b[prefix + j] ? lcs[i + 1][j + 1] + 1
                                                 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  // The edit script: ' ', '-', '+' per line over the whole files.
  struct Op {
    char mark;
    std::size_t ai, bi;
  };
  std::vector<Op> ops;
  for (std::size_t i = 0; i < prefix; ++i) ops.push_back({' ', i, i});
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[prefix + i] == b[prefix + j]) {
      ops.push_back({' ', prefix + i++, prefix + j++});
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      ops.push_back({'-', prefix + i++, prefix + j});
    } else {
      ops.push_back({'+', prefix + i, prefix + j++});
    }
  }
  for (std::size_t k = 0; k < suffix; ++k) {
    ops.push_back({' ', a.size() - suffix + k, b.size() - suffix + k});
  }
  constexpr std::size_t kContext = 3;
  std::string out = fmt::format("--- a/{}\n+++ b/{}\n", path, path);
  std::size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].mark == ' ') {
      ++k;
      continue;
    }
    const std::size_t begin = k > kContext ? k - kContext : 0;
    std::size_t end = k;
    // Extend while the next change is within 2 * context lines.
    for (std::size_t last = k; end < ops.size(); ++end) {
      if (ops[end].mark != ' ') last = end;
      if (end - last > 2 * kContext) break;
    }
    std::size_t stop = end;
    while (stop > begin && ops[stop - 1].mark == ' ') --stop;
    stop = std::min(ops.size(), stop + kContext);
    std::size_t a_count = 0;
    std::size_t b_count = 0;
    for (std::size_t q = begin; q < stop; ++q) {
      if (ops[q].mark != '+') ++a_count;
      if (ops[q].mark != '-') ++b_count;
    }
    out += fmt::format("@@ -{} +{} @@\n", hunk_range(ops[begin].ai, a_count),
                       hunk_range(ops[begin].bi, b_count));
    for (std::size_t q = begin; q < stop; ++q) {
      add_line(out, ops[q].mark, ops[q].mark == '+' ? b[ops[q].bi] : a[ops[q].ai]);
    }
    k = stop;
  }
  return out;
}

}  // namespace devcheck::lint
