// utf8.cpp — the strict parts of the UTF-8 codec (utf8.h).
#include "runtime/utf8.h"

#include <cstring>

namespace kiln {

int32_t utf8_decode_sequence(const unsigned char *p, int len) {
  uint32_t c;
  switch (len) {
  case 1: return p[0] < 0x80 ? p[0] : -1;
  case 2: c = p[0] & 0x1Fu; break;
  case 3: c = p[0] & 0x0Fu; break;
  case 4: c = p[0] & 0x07u; break;
  default: return -1;
  }
  for (int i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80) return -1;
    c = (c << 6) | (p[i] & 0x3Fu);
  }
  // The shortest form only: a 3-byte sequence must carry at least 0x800, a
  // 4-byte one at least 0x10000 (2-byte overlongs have leads 0xC0/0xC1,
  // already refused by utf8_sequence_length).
  if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000)) return -1;
  if (!is_scalar_value(c)) return -1;
  return int32_t(c);
}

bool is_ascii(std::string_view s) {
  const char *p = s.data();
  size_t n = s.size(), i = 0;
  // Eight bytes at a time: a high bit anywhere in the word is a non-ASCII byte.
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    if (w & 0x8080808080808080ull) return false;
  }
  for (; i < n; i++)
    if ((unsigned char)p[i] >= 0x80) return false;
  return true;
}

size_t utf8_invalid_offset(std::string_view s) {
  size_t pos = 0;
  while (pos < s.size()) {
    if ((unsigned char)s[pos] < 0x80) {
      pos++;
      continue;
    }
    if (utf8_next(s, &pos) < 0) return pos;
  }
  return pos;
}

}  // namespace kiln
