// test_report.h — what `kiln test` prints and writes about finished tests:
// the console lines, TAP 13 and JUnit XML (docs/testing.md).
//
// Test output may hold any bytes; every writer here turns it into valid text
// for its format (XML 1.0 forbids most control characters even as references).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/xml_text.h"

namespace kiln {

enum class Verdict { pass, fail, skip, updated };

struct TestResult {
  std::string name;
  Verdict verdict = Verdict::fail;
  double seconds = 0;
  std::string reason;  // fail: the problems, "; "-joined; skip: the skip reason
  std::string detail;  // fail: indented problems and the diff, as the console shows them
  // CPU time (user + system) of the test's process and the children it waited for;
  // the JUnit report's `cpu` attribute (crash_fuzz.py picks its fast golden files by it).
  double cpu_seconds = 0;
};

struct Tally {
  int passed = 0, failed = 0, skipped = 0, updated = 0;
  void count(Verdict v);
  int ran() const { return passed + failed + updated; }
};

// `N passed, N failed` with `, N skipped` and `, N updated` when nonzero.
std::string summary_line(const Tally &t);

// PASS/FAIL/SKIP/UPDATE line, plus the failure detail.
std::string console_report(const TestResult &r);

// One TAP 13 test point (number from 1), with a YAML block for a failure.
std::string tap_report(const TestResult &r, size_t number);

// A whole JUnit document: one <testsuite> holding one <testcase> per result.
std::string junit_xml(const std::vector<TestResult> &results, double total_seconds);

}  // namespace kiln
