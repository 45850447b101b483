// unicode.cpp — unicode.h over libunistring (unictype.h, unicase.h).
#include "runtime/unicode.h"

#include <unicase.h>
#include <unictype.h>

#include <cstdlib>
#include <memory>

#include "runtime/error.h"

namespace kiln {

bool char_is_alphabetic(uint32_t c) {
  if (c < 0x80) return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return uc_is_property_alphabetic(c);
}
bool char_is_numeric(uint32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9';
  return uc_is_general_category(c, UC_CATEGORY_Nd);
}
bool char_is_whitespace(uint32_t c) {
  if (c < 0x80) return c == ' ' || (c >= '\t' && c <= '\r');
  return uc_is_property_white_space(c);
}
bool char_is_upper_case(uint32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z';
  return uc_is_property_uppercase(c);
}
bool char_is_lower_case(uint32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z';
  return uc_is_property_lowercase(c);
}
bool char_is_control(uint32_t c) { return c < 0x20 || (c >= 0x7F && c <= 0x9F); }
int char_digit_value(uint32_t c) {
  if (c < 0x80) return c >= '0' && c <= '9' ? int(c - '0') : -1;
  return uc_decimal_value(c);
}
uint32_t char_upcase(uint32_t c) {
  if (c < 0x80) return c >= 'a' && c <= 'z' ? c - 32 : c;
  return uc_toupper(c);
}
uint32_t char_downcase(uint32_t c) {
  if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
  return uc_tolower(c);
}

namespace {

struct FreeDeleter {
  void operator()(uint32_t *p) const { std::free(p); }
};

// The full case folding of the characters, as libunistring computes it.
std::vector<uint32_t> full_fold(const uint32_t *chars, size_t n) {
  return map_case(chars, n, CaseMapping::Foldcase);
}

}  // namespace

// Simple case folding: the one-character folding, where Unicode gives one.
// libunistring has only the full folding, so a character that folds to one
// character takes that; one whose full folding is longer (ß -> ss) keeps a
// one-character simple folding only when its lower-case form folds the same
// way (ẞ -> ß), as CaseFolding.txt's 'S' entries do; otherwise it folds to
// itself (İ, whose lower-case i folds differently).
uint32_t char_foldcase(uint32_t c) {
  if (c < 0x80) return char_downcase(c);
  std::vector<uint32_t> full = full_fold(&c, 1);
  if (full.size() == 1) return full[0];
  uint32_t lower = uc_tolower(c);
  if (lower != c && full_fold(&lower, 1) == full) return lower;
  return c;
}

std::vector<uint32_t> map_case(const uint32_t *chars, size_t n, CaseMapping how) {
  if (n == 0) return {};
  size_t out_len = 0;
  uint32_t *out = nullptr;
  switch (how) {
  case CaseMapping::Upcase: out = u32_toupper(chars, n, nullptr, nullptr, nullptr, &out_len); break;
  case CaseMapping::Downcase: out = u32_tolower(chars, n, nullptr, nullptr, nullptr, &out_len); break;
  case CaseMapping::Foldcase: out = u32_casefold(chars, n, nullptr, nullptr, nullptr, &out_len); break;
  }
  if (!out) throw_error("out of memory while mapping the case of a string");
  std::unique_ptr<uint32_t, FreeDeleter> owned(out);
  return std::vector<uint32_t>(out, out + out_len);
}

}  // namespace kiln
