// unicode.h — character classes and case mappings from libunistring's tables.
//
// Invariant: every function takes Unicode scalar values and answers from the
// Unicode tables of the libunistring Debian package (never the C locale), so
// the reader, the char builtins and the string builtins agree. ASCII takes a
// short path with the same answers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln {

bool char_is_alphabetic(uint32_t c);  // Unicode Alphabetic property
bool char_is_numeric(uint32_t c);     // general category Nd (decimal digit)
bool char_is_whitespace(uint32_t c);  // White_Space property
bool char_is_upper_case(uint32_t c);  // Uppercase property
bool char_is_lower_case(uint32_t c);  // Lowercase property
bool char_is_control(uint32_t c);     // general category Cc
int char_digit_value(uint32_t c);     // 0..9 for an Nd character, else -1
uint32_t char_upcase(uint32_t c);     // simple (one-character) mappings
uint32_t char_downcase(uint32_t c);
uint32_t char_foldcase(uint32_t c);

// Full mappings of whole texts (a character may become several: ß -> SS,
// and a final Σ lower-cases to ς).
enum class CaseMapping { Upcase, Downcase, Foldcase };
std::vector<uint32_t> map_case(const uint32_t *chars, size_t n, CaseMapping how);

}  // namespace kiln
