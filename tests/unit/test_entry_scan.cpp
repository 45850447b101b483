// Unit tests for repl/entry_scan.h: when the REPL evaluates an entry and when it
// keeps reading, for every lexical form that can hide a bracket.
#include <catch2/catch.hpp>

#include "repl/entry_scan.h"

using namespace kiln;

TEST_CASE("entry_scan: brackets of both kinds are counted", "[entry_scan]") {
  CHECK(scan_entry("(a (b").depth == 2);
  CHECK_FALSE(scan_entry("(a (b").complete());
  CHECK(scan_entry("(a [b])").depth == 0);
  CHECK(scan_entry("(a [b])").complete());
  CHECK(scan_entry("").complete());
  CHECK(scan_entry("42").complete());
}

TEST_CASE("entry_scan: an unmatched close is complete, to be reported now", "[entry_scan]") {
  EntryScan s = scan_entry("())");
  CHECK(s.unmatched_close);
  CHECK(s.complete());
  CHECK(scan_entry(")").unmatched_close);
  CHECK(scan_entry("]").unmatched_close);
}

TEST_CASE("entry_scan: strings hide brackets and escapes hide quotes", "[entry_scan]") {
  EntryScan s = scan_entry("(display \"(");
  CHECK(s.depth == 1);
  CHECK(s.in_string);
  CHECK(s.string_start == 9);
  CHECK_FALSE(s.complete());
  CHECK(scan_entry("\"a\\\"(\"").complete());
  CHECK(scan_entry("(f \"a\\\\\")").complete());
  CHECK_FALSE(scan_entry("\"open").complete());
}

TEST_CASE("entry_scan: comments hide brackets", "[entry_scan]") {
  CHECK(scan_entry("(a) ; (").complete());
  CHECK(scan_entry("(a ; )\n").depth == 1);
  CHECK(scan_entry("#| ( |# 1").complete());
  EntryScan open_comment = scan_entry("#| #| |# (");
  CHECK(open_comment.block_comment == 1);
  CHECK_FALSE(open_comment.complete());
  CHECK(scan_entry("#| #| |# |#").complete());
}

TEST_CASE("entry_scan: character literals and |symbols| hide brackets", "[entry_scan]") {
  CHECK(scan_entry("#\\( x").complete());
  CHECK(scan_entry("(list #\\) #\\()").complete());
  CHECK(scan_entry("(quote |a (b|)").complete());
  EntryScan sym = scan_entry("'|a (");
  CHECK(sym.in_symbol);
  CHECK_FALSE(sym.complete());
}
