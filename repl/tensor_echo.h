// tensor_echo.h — how the REPL and the notebook kernel show the value of an entry
// (SPEC §19): a tensor of rank 2 or more by rows, as NumPy prints an array, and,
// for the notebook, a tensor as an HTML table.
//
// Invariant: only echoes use these forms. `write` and `display` keep the one-line
// `#<tensor 2x3 [...]>` of SPEC §3, so scripts and golden files never change, and
// every other value echoes exactly as write_string prints it.
#pragma once
#include <string>

#include "runtime/value.h"

namespace kiln {

// Axes longer than this are elided to their first and last kEchoEdgeItems rows,
// columns or blocks with `...` between.
constexpr int64_t kEchoMaxItems = 6;
constexpr int64_t kEchoEdgeItems = 3;
// The HTML table shows at most this many rows and columns (the first and last
// half of each beyond it, with an elision row or column between).
constexpr int64_t kHtmlMaxItems = 20;

// The echo of one value: by rows for a tensor of rank >= 2, else write form.
// Multiple values echo one per line; the unspecified value echoes as "".
std::string echo_string(Value v);
// The rows form, `#<tensor 2x3\n  [[1.0 2.0 3.0]\n   [4.0 5.0 6.0]]>`: every
// element right-aligned to the widest shown one.
std::string tensor_rows_string(Value tensor);
// A <table> of the tensor's elements: rank 0 one cell, rank 1 one row, rank 2 its
// rows, higher ranks one row per index of the leading axes (labelled by them).
std::string tensor_html_table(Value tensor);

}  // namespace kiln
