// The UTF-8 codec (runtime/utf8.h), width-adaptive string storage
// (runtime/string_storage.cpp) and the libunistring wrappers (runtime/unicode.h).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "runtime/gc.h"
#include "runtime/object.h"
#include "runtime/unicode.h"
#include "runtime/utf8.h"

using namespace kiln;

namespace {

std::string encode(uint32_t c) {
  std::string s;
  utf8_append(s, c);
  return s;
}

// Decodes all of s; -1 marks the place decoding stopped at invalid bytes.
std::vector<int32_t> decode_all(std::string_view s) {
  std::vector<int32_t> out;
  size_t pos = 0;
  while (pos < s.size()) {
    int32_t c = utf8_next(s, &pos);
    out.push_back(c);
    if (c < 0) break;
  }
  return out;
}

String *str(Value v) { return as<String>(v); }

}  // namespace

TEST_CASE("utf8 encodes each length at its boundaries", "[unicode]") {
  CHECK(encode(0) == std::string(1, '\0'));
  CHECK(encode(0x7F) == "\x7F");
  CHECK(encode(0x80) == "\xC2\x80");
  CHECK(encode(0x3BB) == "\xCE\xBB");
  CHECK(encode(0x7FF) == "\xDF\xBF");
  CHECK(encode(0x800) == "\xE0\xA0\x80");
  CHECK(encode(0xFFFF) == "\xEF\xBF\xBF");
  CHECK(encode(0x10000) == "\xF0\x90\x80\x80");
  CHECK(encode(0x10FFFF) == "\xF4\x8F\xBF\xBF");
  for (uint32_t c : {0u, 0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xFFFFu, 0x10000u, 0x10FFFFu})
    CHECK(utf8_length(c) == int(encode(c).size()));
}

TEST_CASE("utf8 decoding round-trips every scalar value", "[unicode]") {
  for (uint32_t c = 0; c <= kMaxCodePoint; c += (c < 0x20000 ? 1 : 97)) {
    if (is_surrogate(c)) continue;
    std::string s = encode(c);
    size_t pos = 0;
    REQUIRE(utf8_next(s, &pos) == int32_t(c));
    REQUIRE(pos == s.size());
  }
}

TEST_CASE("utf8 decoding rejects malformed input", "[unicode]") {
  // overlong forms of '/' and of U+07FF, U+FFFF
  CHECK(decode_all("\xC0\xAF").back() == -1);
  CHECK(decode_all("\xE0\x9F\xBF").back() == -1);
  CHECK(decode_all("\xF0\x8F\xBF\xBF").back() == -1);
  // surrogates encoded directly (CESU-style)
  CHECK(decode_all("\xED\xA0\x80").back() == -1);
  CHECK(decode_all("\xED\xBF\xBF").back() == -1);
  // beyond U+10FFFF, stray continuation bytes, bytes never used
  CHECK(decode_all("\xF4\x90\x80\x80").back() == -1);
  CHECK(decode_all("\x80").back() == -1);
  CHECK(decode_all("\xFF").back() == -1);
  // truncated sequences, and one broken by an ASCII byte
  CHECK(decode_all("\xCE").back() == -1);
  CHECK(decode_all("\xE2\x82").back() == -1);
  CHECK(decode_all("\xE2\x28\xA1").back() == -1);
  // the first bad byte, for error messages
  CHECK(utf8_invalid_offset("ab\xCE\xBB\xFFz") == 4);
  CHECK(utf8_invalid_offset("ab\xCE\xBB") == 4);
  CHECK(utf8_invalid_offset("ab\xCE") == 2);
  CHECK(is_ascii("plain text, 16 b"));
  CHECK_FALSE(is_ascii("plain text, 16 \xCE\xBB"));
}

TEST_CASE("strings stay narrow while ASCII and widen on the first wider char", "[unicode]") {
  Value s = make_string("hello");
  REQUIRE_FALSE(string_is_wide(str(s)));
  CHECK(string_view_of(s) == "hello");
  string_set_char(str(s), 1, 'a');
  CHECK(string_view_of(s) == "hallo");
  CHECK_FALSE(string_is_wide(str(s)));
  string_set_char(str(s), 4, 0x3BB);
  CHECK(string_is_wide(str(s)));
  CHECK(str(s)->len == 5);
  CHECK(string_char(str(s), 0) == 'h');
  CHECK(string_char(str(s), 4) == 0x3BB);
  CHECK(string_view_of(s) == "hall\xCE\xBB");
  // the UTF-8 text follows later changes
  string_set_char(str(s), 0, 0x1F600);
  CHECK(string_view_of(s) ==
        "\xF0\x9F\x98\x80"
        "all\xCE\xBB");
  CHECK(string_view_of(s).data()[string_view_of(s).size()] == '\0');
}

TEST_CASE("make_string decodes UTF-8 and replaces invalid bytes", "[unicode]") {
  Value s = make_string(
      "a\xCE\xBB"
      "b");
  REQUIRE(string_is_wide(str(s)));
  CHECK(str(s)->len == 3);
  CHECK(string_char(str(s), 1) == 0x3BB);
  Value bad = make_string(
      "a\xFF"
      "b\xCE");
  CHECK(str(bad)->len == 4);
  CHECK(string_char(str(bad), 1) == kReplacementChar);
  CHECK(string_char(str(bad), 2) == 'b');
  CHECK(string_char(str(bad), 3) == kReplacementChar);
}

TEST_CASE("slices and copies choose the narrowest width", "[unicode]") {
  Value s = make_string(
      "ab\xCE\xBB"
      "cd");
  Value ascii = string_slice(str(s), 3, 5);
  CHECK_FALSE(string_is_wide(str(ascii)));
  CHECK(string_view_of(ascii) == "cd");
  Value wide = string_slice(str(s), 1, 3);
  CHECK(string_is_wide(str(wide)));
  CHECK(string_view_of(wide) == "b\xCE\xBB");
  uint32_t chars[] = {'x', 'y'};
  CHECK_FALSE(string_is_wide(str(make_string_from_chars(chars, 2))));
  CHECK(string_is_wide(str(make_string_filled(3, 0xE9))));
  CHECK(string_view_of(make_string_filled(2, 0xE9)) == "\xC3\xA9\xC3\xA9");
}

TEST_CASE("string_copy_chars widens the target and handles overlap", "[unicode]") {
  Value to = make_string("......");
  string_copy_chars(str(to), 1, str(make_string("ab")), 0, 2);
  CHECK_FALSE(string_is_wide(str(to)));
  CHECK(string_view_of(to) == ".ab...");
  string_copy_chars(str(to), 3, str(make_string("\xCE\xBB\xCE\xBC")), 0, 2);
  CHECK(string_is_wide(str(to)));
  CHECK(string_view_of(to) == ".ab\xCE\xBB\xCE\xBC.");
  // overlapping, within one wide string: as memmove
  string_copy_chars(str(to), 0, str(to), 1, 5);
  CHECK(string_view_of(to) == "ab\xCE\xBB\xCE\xBC\xCE\xBC.");
  // wide source of only ASCII into a narrow target keeps it narrow
  Value narrow = make_string("xyz");
  Value ascii_wide = make_string(
      "\xCE\xBB"
      "ab");
  string_copy_chars(str(narrow), 0, str(ascii_wide), 1, 3);
  CHECK_FALSE(string_is_wide(str(narrow)));
  CHECK(string_view_of(narrow) == "abz");
}

TEST_CASE("wide strings survive collections", "[unicode][gc]") {
  Value s = make_string_filled(1000, 0x3BB);
  std::string_view before = string_view_of(s);
  CHECK(before.size() == 2000);
  for (int i = 0; i < 3; i++) GC_gcollect();
  for (int i = 0; i < 20000; i++) make_string("garbage \xCE\xBB garbage");
  GC_gcollect();
  CHECK(string_char(str(s), 999) == 0x3BB);
  CHECK(string_view_of(s) == before);
}

TEST_CASE("character classes and case mappings come from the Unicode tables", "[unicode]") {
  CHECK(char_is_alphabetic(0x3BB));
  CHECK_FALSE(char_is_alphabetic('1'));
  CHECK(char_is_numeric(0x664));  // ARABIC-INDIC DIGIT FOUR
  CHECK(char_digit_value(0x664) == 4);
  CHECK(char_digit_value(0x0E50) == 0);  // THAI DIGIT ZERO
  CHECK(char_digit_value('x') == -1);
  CHECK(char_is_whitespace(0x3000));
  CHECK(char_is_whitespace(0xA0));
  CHECK_FALSE(char_is_whitespace(0x200B));
  CHECK(char_is_upper_case(0x39B));
  CHECK(char_is_lower_case(0x3BB));
  CHECK(char_upcase(0x3BB) == 0x39B);
  CHECK(char_downcase(0x39B) == 0x3BB);
  CHECK(char_upcase(0xDF) == 0xDF);      // ß has no one-character upper case
  CHECK(char_foldcase(0x1E9E) == 0xDF);  // ẞ folds simply to ß
  CHECK(char_foldcase(0x130) == 0x130);  // İ has no simple folding
  CHECK(char_foldcase(0x3A3) == 0x3C3);  // Σ -> σ
  uint32_t strasse[] = {'s', 't', 'r', 'a', 0xDF, 'e'};
  std::vector<uint32_t> up = map_case(strasse, 6, CaseMapping::Upcase);
  CHECK(up == std::vector<uint32_t>{'S', 'T', 'R', 'A', 'S', 'S', 'E'});
  uint32_t sigma_word[] = {0x39F, 0x3A3};  // ΟΣ: the final sigma lower-cases to ς
  CHECK(map_case(sigma_word, 2, CaseMapping::Downcase) == std::vector<uint32_t>{0x3BF, 0x3C2});
  CHECK(map_case(sigma_word, 2, CaseMapping::Foldcase) == std::vector<uint32_t>{0x3BF, 0x3C3});
}
