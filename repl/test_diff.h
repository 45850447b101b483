// test_diff.h — the unified diff `kiln test` prints for a failed test (docs/testing.md).
//
// The diff is for a human or a CI page, never for patch: it is capped in lines
// and in line length, so a test printing megabytes gives a report of a few
// kilobytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kiln {

struct DiffLimits {
  size_t max_lines = 200;       // diff lines after the two header lines
  size_t max_line_bytes = 400;  // longer lines are cut, saying how much is left out
};

// Splits at '\n'; a final line without '\n' is still a line, and "" has none.
std::vector<std::string> split_lines(std::string_view text);

// `diff -u` of expected against actual, headed `--- LABEL.out (expected)` and
// `+++ LABEL (actual)`; "" when they are equal line by line.
std::string unified_diff(std::string_view expected, std::string_view actual, const std::string &label,
                         const DiffLimits &limits = {});

}  // namespace kiln
