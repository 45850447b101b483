// chars.h — Latin-1 character classification and case mapping.
//
// Invariant: every function takes and returns a code point in 0..255 and is
// independent of the C locale, so strings.cpp and chars.cpp agree.
#pragma once
#include <cstdint>

namespace kiln {

bool latin1_upper(uint32_t c);
bool latin1_lower(uint32_t c);
bool latin1_alpha(uint32_t c);
bool latin1_digit(uint32_t c);
bool latin1_space(uint32_t c);
uint32_t latin1_upcase(uint32_t c);
uint32_t latin1_downcase(uint32_t c);

}  // namespace kiln
