// Unit tests for repl/test_diff.h and repl/test_report.h: `kiln test` reports
// stay small and well-formed whatever bytes a test prints.
#include <catch2/catch.hpp>
#include <string>

#include "repl/test_diff.h"
#include "repl/test_report.h"

using namespace kiln;

namespace {

size_t count_lines(const std::string &s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("unified_diff: as diff -u for a small change", "[test_runner]") {
  std::string d = unified_diff("a\nb\nc\n", "a\nB\nc\n", "t");
  CHECK(d == "--- t.out (expected)\n+++ t (actual)\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
  CHECK(unified_diff("same\n", "same", "t") == "");
}

TEST_CASE("unified_diff: at most 200 lines, long lines cut", "[test_runner]") {
  std::string many;
  for (int i = 0; i < 5000; i++) many += std::to_string(i) + "\n";
  std::string d = unified_diff("", many, "t");
  CHECK(count_lines(d) == 2 + 200 + 1);
  CHECK(d.find("4801 more diff lines not shown (at most 200)") != std::string::npos);

  std::string wide(100000, 'x');
  d = unified_diff("x\n", wide, "t");
  CHECK(d.size() < 1000);
  CHECK(d.find("[99600 more bytes]") != std::string::npos);

  // The cut never splits a UTF-8 character.
  std::string lambdas;
  for (int i = 0; i < 1000; i++) lambdas += "\xCE\xBB";
  d = unified_diff("", "x" + lambdas, "t");
  CHECK(printable_text(d) == d);
}

TEST_CASE("printable_text and xml_escape: any bytes give valid text", "[test_runner]") {
  CHECK(printable_text("tab\tnl\n\xCE\xBB") == "tab\tnl\n\xCE\xBB");
  CHECK(printable_text(std::string("a\x01\x7F\xFF\xC0\x80z", 7)) == "a\\x01;\\x7F;\\xFF;\\xC0;\\x80;z");
  CHECK(printable_text(std::string("\0", 1)) == "\\x00;");
  CHECK(printable_text("\xED\xA0\x80") == "\\xED;\\xA0;\\x80;");  // a surrogate
  CHECK(printable_text("\xEF\xBF\xBE") == "\\xEF;\\xBF;\\xBE;");  // U+FFFE, not XML
  CHECK(printable_text("\xCE") == "\\xCE;");                      // cut short
  CHECK(xml_escape("<a href='x'>&\"</a>") == "&lt;a href=&apos;x&apos;&gt;&amp;&quot;&lt;/a&gt;");
}

TEST_CASE("summary_line and junit_xml", "[test_runner]") {
  Tally t;
  t.count(Verdict::pass);
  t.count(Verdict::fail);
  CHECK(summary_line(t) == "1 passed, 1 failed");
  t.count(Verdict::updated);
  CHECK(summary_line(t) == "1 passed, 1 failed, 1 updated");
  t.count(Verdict::skip);
  CHECK(summary_line(t) == "1 passed, 1 failed, 1 skipped, 1 updated");

  std::vector<TestResult> rs = {{"a/b/c", Verdict::pass, 0.0126, "", "", 0.25},
                                {"x<y", Verdict::fail, 1, "timed out", "  timed out\n-a\n+<&>\n"},
                                {"s", Verdict::skip, 0, "later & \"soon\"", ""}};
  std::string x = junit_xml(rs, 2.5);
  CHECK(x.find("<testsuite name=\"kiln test\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" "
               "time=\"2.500\">") != std::string::npos);
  CHECK(x.find("<testcase name=\"a/b/c\" classname=\"a.b\" time=\"0.013\" cpu=\"0.250\"/>") !=
        std::string::npos);
  CHECK(x.find("<failure message=\"timed out\">  timed out\n-a\n+&lt;&amp;&gt;\n</failure>") !=
        std::string::npos);
  CHECK(x.find("<skipped message=\"later &amp; &quot;soon&quot;\"/>") != std::string::npos);
  CHECK(x.find("name=\"x&lt;y\" classname=\"kiln\"") != std::string::npos);
}

TEST_CASE("tap_report", "[test_runner]") {
  CHECK(tap_report({"a#b", Verdict::pass, 0, "", ""}, 1) == "ok 1 - a\\#b\n");
  CHECK(tap_report({"s", Verdict::skip, 0, "why", ""}, 2) == "ok 2 - s # SKIP why\n");
  CHECK(tap_report({"f", Verdict::fail, 0.002, "output \"differs\"", "  x\n-a\n"}, 3) ==
        "not ok 3 - f\n  ---\n  message: \"output \\\"differs\\\"\"\n  duration_ms: 2\n"
        "  detail: |-\n      x\n    -a\n  ...\n");
}
