// utf8.h — the UTF-8 codec Kiln's strings, reader and ports share.
//
// Invariant: only Unicode scalar values are encoded or produced by decoding
// (0..0x10FFFF without the surrogates 0xD800..0xDFFF); decoding is strict, so
// overlong forms, surrogates, stray continuation bytes and truncated
// sequences are rejected rather than repaired silently.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace kiln {

constexpr uint32_t kMaxCodePoint = 0x10FFFF;
constexpr uint32_t kReplacementChar = 0xFFFD;

inline bool is_surrogate(int64_t c) { return c >= 0xD800 && c <= 0xDFFF; }
inline bool is_scalar_value(int64_t c) { return c >= 0 && c <= kMaxCodePoint && !is_surrogate(c); }

// Bytes UTF-8 needs for the scalar value c (1..4).
inline int utf8_length(uint32_t c) { return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4; }

// Writes c's encoding at out (room for 4 bytes); returns its length.
inline int utf8_encode(uint32_t c, char *out) {
  if (c < 0x80) {
    out[0] = char(c);
    return 1;
  }
  if (c < 0x800) {
    out[0] = char(0xC0 | (c >> 6));
    out[1] = char(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    out[0] = char(0xE0 | (c >> 12));
    out[1] = char(0x80 | ((c >> 6) & 0x3F));
    out[2] = char(0x80 | (c & 0x3F));
    return 3;
  }
  out[0] = char(0xF0 | (c >> 18));
  out[1] = char(0x80 | ((c >> 12) & 0x3F));
  out[2] = char(0x80 | ((c >> 6) & 0x3F));
  out[3] = char(0x80 | (c & 0x3F));
  return 4;
}

inline void utf8_append(std::string &out, uint32_t c) {
  if (c < 0x80) {
    out += char(c);
    return;
  }
  char buf[4];
  out.append(buf, size_t(utf8_encode(c, buf)));
}

// The length a sequence starting with `lead` claims (1..4), or 0 when `lead`
// cannot start one (a continuation byte, or 0xC0, 0xC1, 0xF5..0xFF).
inline int utf8_sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xC2) return 0;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  if (lead < 0xF5) return 4;
  return 0;
}

// Decodes the sequence of `len` bytes at p (len from utf8_sequence_length of
// p[0]); returns the scalar value, or -1 when the bytes are not a valid
// encoding (a bad continuation byte, an overlong form, a surrogate).
int32_t utf8_decode_sequence(const unsigned char *p, int len);

// Decodes the character at s[*pos], advancing *pos past it; -1 (with *pos
// unchanged) when the bytes there are not valid UTF-8 or are cut short.
inline int32_t utf8_next(std::string_view s, size_t *pos) {
  auto *p = reinterpret_cast<const unsigned char *>(s.data()) + *pos;
  if (*p < 0x80) {
    ++*pos;
    return *p;
  }
  int len = utf8_sequence_length(*p);
  if (len == 0 || size_t(len) > s.size() - *pos) return -1;
  int32_t c = utf8_decode_sequence(p, len);
  if (c >= 0) *pos += size_t(len);
  return c;
}

// Offset of the first byte of s that does not begin a valid UTF-8 sequence,
// or s.size() when all of s is valid.
size_t utf8_invalid_offset(std::string_view s);
// Whether every byte of s is below 0x80.
bool is_ascii(std::string_view s);

}  // namespace kiln
