// progress_line.cpp — the text of with-progress's line (stdlib/progress.lisp,
// docs/progress-and-plots.md):
//   LABEL [#########---------------]  37/100  12.3 it/s  0:03<0:05  STATUS
// A pure function of its arguments, so golden tests can check every shape of it
// without a terminal or a clock.
#include <fmt/format.h>

#include <cmath>
#include <string>

#include "runtime/printer.h"
#include "stdlib/builtins.h"

namespace kiln {

namespace {

constexpr int kBarCells = 24;

// Text drawn on one terminal line must not move the cursor: control characters
// become spaces.
void append_flat(std::string &out, std::string_view s) {
  for (char c : s) out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
}

// m:ss, or h:mm:ss from an hour on.
std::string clock_text(double seconds) {
  if (!(seconds < 1e12)) return "?";  // a rate near zero: no ETA worth showing (and no overflow)
  int64_t s = int64_t(std::floor(seconds));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

// Three significant digits or more: 12.3, 4.56, 789.
std::string rate_text(double r) {
  if (!(r < 1e12)) return "?";
  return fmt::format("{:.{}f}", r, r >= 100 ? 0 : r >= 10 ? 1 : 2);
}

std::string status_text(Value v) {
  if (is_string(v)) return std::string(string_view_of(v));
  if (is_double(v) && std::isfinite(double_of(v))) return fmt::format("{:.6g}", double_of(v));
  return display_string(v);  // integers, and Kiln's spelling of NaN and the infinities
}

Value b_progress_line(int, Value *argv) {
  const char *who = "%progress-line";
  std::string_view label = string_view_of(from_ptr(arg_string(who, 1, argv[0])));
  int64_t count = arg_index(who, 2, argv[1]);
  int64_t total = arg_index(who, 3, argv[2]);
  double seconds = arg_num(who, 4, argv[3]) / 1e6;
  Value status = argv[4];
  if (status != FALSE_V && !is_string(status) && !is_number(status))
    type_error(who, 5, "#f, a string or a number", status);
  int64_t width = argv[5] == FALSE_V ? -1 : arg_index(who, 6, argv[5]);

  std::string line;
  append_flat(line, label);
  if (!label.empty()) line += ' ';
  int64_t filled =
      total == 0 || count >= total ? kBarCells : int64_t(double(count) / double(total) * kBarCells);
  line += '[' + std::string(size_t(filled), '#') + std::string(size_t(kBarCells - filled), '-') + ']';
  line += fmt::format("  {:>{}}/{}", count, std::to_string(total).size(), total);
  double rate = seconds > 0 ? double(count) / seconds : 0;
  if (rate <= 0) line += "  ? it/s";
  else if (rate >= 1) line += "  " + rate_text(rate) + " it/s";
  else line += "  " + rate_text(1 / rate) + " s/it";  // a slow loop: seconds per tick read better
  line += "  " + clock_text(seconds);
  if (count < total) line += rate > 0 ? '<' + clock_text(double(total - count) / rate) : "<?";
  if (status != FALSE_V) {
    line += "  ";
    append_flat(line, status_text(status));
  }
  // The last column stays empty: writing there makes some terminals wrap at once,
  // and the next '\r' would then redraw on a new line.
  // Columns are characters, so the cut counts the UTF-8 bytes that start one.
  if (width > 0) {
    int64_t chars = 0;
    for (size_t i = 0; i < line.size(); i++) {
      if (((unsigned char)line[i] & 0xC0) == 0x80) continue;
      if (++chars == width) {
        line.resize(i);
        break;
      }
    }
  }
  return make_string(line);
}

BuiltinRegistrar progress_line_registrar([] {
  defbuiltin("%progress-line", 6, 6, b_progress_line,
             "(%progress-line LABEL COUNT TOTAL MICROSECONDS STATUS WIDTH): with-progress's line as a string "
             "(STATUS #f for none, WIDTH #f for no limit).");
});

}  // namespace
}  // namespace kiln
