// test_report.cpp — see test_report.h.
#include "repl/test_report.h"

#include <cmath>
#include <cstdint>

namespace kiln {
namespace {

std::string format_ms(double seconds) { return std::to_string(std::llround(seconds * 1000)) + " ms"; }

std::string format_seconds(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", seconds);
  return buf;
}

// The directory part of a test name, dotted, as JUnit readers group classes.
std::string junit_classname(const std::string &name) {
  size_t slash = name.rfind('/');
  if (slash == std::string::npos || slash == 0) return "kiln";
  std::string dir = name.substr(0, slash);
  for (char &c : dir)
    if (c == '/') c = '.';
  return dir;
}

// TAP descriptions end at '#', which starts a directive.
std::string tap_description(const std::string &name) {
  std::string out;
  for (char c : printable_text(name)) {
    if (c == '#' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

}  // namespace

void Tally::count(Verdict v) {
  switch (v) {
  case Verdict::pass: passed++; break;
  case Verdict::fail: failed++; break;
  case Verdict::skip: skipped++; break;
  case Verdict::updated: updated++; break;
  }
}

std::string summary_line(const Tally &t) {
  std::string s = std::to_string(t.passed) + " passed, " + std::to_string(t.failed) + " failed";
  if (t.skipped) s += ", " + std::to_string(t.skipped) + " skipped";
  if (t.updated) s += ", " + std::to_string(t.updated) + " updated";
  return s;
}

std::string console_report(const TestResult &r) {
  switch (r.verdict) {
  case Verdict::pass: return "PASS " + r.name + " " + format_ms(r.seconds) + "\n";
  case Verdict::updated: return "UPDATE " + r.name + " " + format_ms(r.seconds) + "\n";
  case Verdict::skip: return "SKIP " + r.name + (r.reason.empty() ? "" : " (" + r.reason + ")") + "\n";
  case Verdict::fail: break;
  }
  return "FAIL " + r.name + "\n" + r.detail;
}

std::string tap_report(const TestResult &r, size_t number) {
  std::string head = std::to_string(number) + " - " + tap_description(r.name);
  switch (r.verdict) {
  case Verdict::pass: return "ok " + head + "\n";
  case Verdict::updated: return "ok " + head + " (updated)\n";
  case Verdict::skip: return "ok " + head + " # SKIP " + tap_description(r.reason) + "\n";
  case Verdict::fail: break;
  }
  // YAML: the message as a double-quoted scalar, the detail as a literal block.
  std::string out = "not ok " + head + "\n  ---\n  message: \"";
  for (char c : printable_text(r.reason)) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' || c == '\t' ? ' ' : c;
  }
  out += "\"\n  duration_ms: " + std::to_string(std::llround(r.seconds * 1000)) + "\n";
  if (!r.detail.empty()) {
    out += "  detail: |-\n";
    std::string text = printable_text(r.detail);
    size_t start = 0;
    while (start < text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string::npos) nl = text.size();
      out += "    " + text.substr(start, nl - start) + "\n";
      start = nl + 1;
    }
  }
  return out + "  ...\n";
}

std::string junit_xml(const std::vector<TestResult> &results, double total_seconds) {
  Tally t;
  for (const TestResult &r : results) t.count(r.verdict);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<testsuite name=\"kiln test\" tests=\"" + std::to_string(results.size()) + "\" failures=\"" +
         std::to_string(t.failed) + "\" errors=\"0\" skipped=\"" + std::to_string(t.skipped) + "\" time=\"" +
         format_seconds(total_seconds) + "\">\n";
  for (const TestResult &r : results) {
    out += "  <testcase name=\"" + xml_escape(r.name) + "\" classname=\"" +
           xml_escape(junit_classname(r.name)) + "\" time=\"" + format_seconds(r.seconds) + "\" cpu=\"" +
           format_seconds(r.cpu_seconds) + "\"";
    if (r.verdict == Verdict::fail) {
      out += ">\n    <failure message=\"" + xml_escape(r.reason) + "\">" + xml_escape(r.detail) +
             "</failure>\n  </testcase>\n";
    } else if (r.verdict == Verdict::skip) {
      out += ">\n    <skipped message=\"" + xml_escape(r.reason) + "\"/>\n  </testcase>\n";
    } else {
      out += "/>\n";
    }
  }
  return out + "</testsuite>\n";
}

}  // namespace kiln
