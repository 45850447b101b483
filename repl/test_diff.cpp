// test_diff.cpp — see test_diff.h.
#include "repl/test_diff.h"

#include <algorithm>
#include <cstdint>

namespace kiln {
namespace {

// Lines of unchanged context around each hunk, as `diff -u`.
constexpr size_t kContext = 3;
// Above this many table cells (4 bytes each) the changed middle is shown as one
// hunk of deletions then additions: correct, only less minimal, and bounded in memory.
constexpr size_t kMaxLcsCells = 4u << 20;

enum class Edit { Same, Del, Add };
struct EditLine {
  Edit kind;
  size_t a, b;  // line index in expected (Same/Del) and actual (Same/Add)
};

// The edit script turning `a` into `b`: common prefix and suffix, then a
// longest-common-subsequence table over the changed middle.
std::vector<EditLine> edit_script(const std::vector<std::string> &a, const std::vector<std::string> &b) {
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) pre++;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && a[a.size() - 1 - suf] == b[b.size() - 1 - suf])
    suf++;
  size_t n = a.size() - pre - suf, m = b.size() - pre - suf;

  std::vector<EditLine> script;
  for (size_t i = 0; i < pre; i++) script.push_back({Edit::Same, i, i});
  if (n > kMaxLcsCells / (m + 1) || (n + 1) * (m + 1) > kMaxLcsCells) {
    for (size_t i = 0; i < n; i++) script.push_back({Edit::Del, pre + i, pre});
    for (size_t j = 0; j < m; j++) script.push_back({Edit::Add, pre + n, pre + j});
  } else {
    // lcs[i][j] = LCS length of a[pre+i..] and b[pre+j..]
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t & { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
      for (size_t j = m; j-- > 0;)
        at(i, j) = a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        script.push_back({Edit::Same, pre + i, pre + j});
        i++, j++;
      } else if (j < m && (i == n || at(i, j + 1) > at(i + 1, j))) {
        script.push_back({Edit::Add, pre + i, pre + j});
        j++;
      } else {
        script.push_back({Edit::Del, pre + i, pre + j});
        i++;
      }
    }
  }
  for (size_t k = 0; k < suf; k++) script.push_back({Edit::Same, pre + n + k, pre + m + k});
  return script;
}

// "-a,b" / "+c,d" ranges as diff -u writes them (start is 1-based; an empty
// range names the line before it).
std::string hunk_range(size_t start, size_t count) {
  if (count == 1) return std::to_string(start + 1);
  return std::to_string(count == 0 ? start : start + 1) + "," + std::to_string(count);
}

// Cuts at a UTF-8 character boundary so the report stays valid text.
std::string capped_line(char mark, const std::string &line, size_t max_bytes) {
  if (line.size() <= max_bytes) return mark + line + "\n";
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) cut--;
  return mark + line.substr(0, cut) + " ... [" + std::to_string(line.size() - cut) + " more bytes]\n";
}

}  // namespace

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.emplace_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::string unified_diff(std::string_view expected, std::string_view actual, const std::string &label,
                         const DiffLimits &limits) {
  std::vector<std::string> a = split_lines(expected), b = split_lines(actual);
  if (a == b) return "";
  std::vector<EditLine> script = edit_script(a, b);
  std::string out = "--- " + label + ".out (expected)\n+++ " + label + " (actual)\n";
  size_t lines = 0, left_out = 0;
  auto emit = [&](const std::string &line) {
    if (lines < limits.max_lines) out += line;
    else left_out++;
    lines++;
  };
  size_t k = 0;
  while (k < script.size()) {
    while (k < script.size() && script[k].kind == Edit::Same) k++;
    if (k == script.size()) break;
    size_t begin = k >= kContext ? k - kContext : 0;
    // Extend the hunk while the next change is within 2*context lines.
    size_t end = k;
    for (;;) {
      while (end < script.size() && script[end].kind != Edit::Same) end++;
      size_t same = end;
      while (same < script.size() && script[same].kind == Edit::Same && same - end < 2 * kContext) same++;
      if (same < script.size() && script[same].kind != Edit::Same) {
        end = same;
        continue;
      }
      end = std::min(script.size(), end + kContext);
      break;
    }
    size_t a_count = 0, b_count = 0;
    for (size_t i = begin; i < end; i++) {
      if (script[i].kind != Edit::Add) a_count++;
      if (script[i].kind != Edit::Del) b_count++;
    }
    emit("@@ -" + hunk_range(script[begin].a, a_count) + " +" + hunk_range(script[begin].b, b_count) +
         " @@\n");
    for (size_t i = begin; i < end; i++) {
      const EditLine &e = script[i];
      // Lines past the cap are only counted, so building them would be wasted work.
      if (lines >= limits.max_lines) {
        left_out++, lines++;
        continue;
      }
      if (e.kind == Edit::Same) emit(capped_line(' ', a[e.a], limits.max_line_bytes));
      else if (e.kind == Edit::Del) emit(capped_line('-', a[e.a], limits.max_line_bytes));
      else emit(capped_line('+', b[e.b], limits.max_line_bytes));
    }
    k = end;
  }
  if (left_out)
    out += "... " + std::to_string(left_out) + " more diff line" + (left_out == 1 ? "" : "s") +
           " not shown (at most " + std::to_string(limits.max_lines) + ")\n";
  return out;
}

}  // namespace kiln
