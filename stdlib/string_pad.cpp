// string_pad.cpp — SRFI-13 padding: string-pad (= string-pad-left) and
// string-pad-right.
//
// Invariant: the result always has exactly the requested length and is a
// fresh string. Padding goes on the named side; when the (sub)string is longer,
// characters are dropped from that same side, so string-pad-left keeps the
// rightmost characters (numbers stay aligned) and string-pad-right the leftmost.
#include "stdlib/builtins.h"

namespace kiln {
namespace {

// (NAME S N [CHAR [START [END]]])
Value pad(const char *who, bool left, int argc, Value *argv) {
  String *s = arg_string(who, 1, argv[0]);
  int64_t n = arg_index(who, 2, argv[1]);
  uint32_t fill = argc > 2 ? arg_char(who, 3, argv[2]) : ' ';
  int64_t start = 0, end = s->len;
  if (argc > 3) {
    start = arg_index(who, 4, argv[3]);
    if (start > s->len) range_error(who, start, "string", s->len);
  }
  if (argc > 4) {
    end = arg_index(who, 5, argv[4]);
    if (end > s->len) range_error(who, end, "string", s->len);
  }
  if (start > end) throw_errorf("{}: start {} is greater than end {}", who, start, end);
  int64_t have = end - start;
  Value r = make_string_filled(n, fill);
  String *out = as<String>(r);
  if (have >= n) {
    int64_t from = left ? end - n : start;
    string_copy_chars(out, 0, s, from, from + n);
  } else {
    string_copy_chars(out, left ? n - have : 0, s, start, end);
  }
  return r;
}

Value b_string_pad_left(int argc, Value *argv) { return pad("string-pad-left", true, argc, argv); }
Value b_string_pad(int argc, Value *argv) { return pad("string-pad", true, argc, argv); }
Value b_string_pad_right(int argc, Value *argv) { return pad("string-pad-right", false, argc, argv); }

BuiltinRegistrar string_pad_registrar([] {
  defbuiltin(
      "string-pad-left", 2, 5, b_string_pad_left,
      "(string-pad-left S N [CHAR [START [END]]]) S padded on the left to length N, or its last N chars");
  defbuiltin("string-pad", 2, 5, b_string_pad,
             "(string-pad S N [CHAR [START [END]]]) SRFI-13: string-pad-left");
  defbuiltin(
      "string-pad-right", 2, 5, b_string_pad_right,
      "(string-pad-right S N [CHAR [START [END]]]) S padded on the right to length N, or its first N chars");
});

}  // namespace
}  // namespace kiln
