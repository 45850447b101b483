// string_storage.cpp — width-adaptive string storage (object.h String).
//
// A narrow string holds ASCII only, one byte per character: its bytes are its
// UTF-8 text. A wide string holds one uint32_t per character and builds its
// UTF-8 text on demand (string_view_of), caching it until the next change.
// Strings never narrow again: that would cost a scan on every store.
#include <algorithm>
#include <cstring>

#include "runtime/eval.h"
#include "runtime/object.h"
#include "runtime/utf8.h"

namespace kiln {

String *alloc_string(int64_t len, bool wide) {
  String *s = alloc_obj<String>(T_STRING);
  s->h.flags = wide ? STRING_WIDE : 0;
  s->len = len;
  s->utf8 = nullptr;
  s->utf8_len = 0;
  if (wide) {
    s->data = static_cast<char *>(gc_alloc_atomic(alloc_bytes(uint64_t(len) + 1, sizeof(uint32_t))));
    wide_chars(s)[len] = 0;
  } else {
    s->data = static_cast<char *>(gc_alloc_atomic(alloc_bytes(uint64_t(len), 1, 1)));
    s->data[len] = 0;
  }
  return s;
}

static bool all_ascii(const uint32_t *chars, int64_t n) {
  uint32_t any = 0;
  for (int64_t i = 0; i < n; i++) any |= chars[i];
  return any < 0x80;
}

static void widen(String *s) {
  auto *wide = static_cast<uint32_t *>(gc_alloc_atomic(alloc_bytes(uint64_t(s->len) + 1, sizeof(uint32_t))));
  for (int64_t i = 0; i <= s->len; i++) wide[i] = (unsigned char)s->data[i];  // with the NUL
  s->data = reinterpret_cast<char *>(wide);
  s->h.flags |= STRING_WIDE;
  s->utf8 = nullptr;
}

Value make_string(std::string_view utf8) {
  if (is_ascii(utf8)) {
    String *s = alloc_string(int64_t(utf8.size()), false);
    if (!utf8.empty()) std::memcpy(s->data, utf8.data(), utf8.size());
    return from_ptr(s);
  }
  // Count first, so the wide buffer is exact; each invalid byte is one U+FFFD.
  int64_t n = 0;
  for (size_t pos = 0; pos < utf8.size(); n++)
    if (utf8_next(utf8, &pos) < 0) pos++;
  String *s = alloc_string(n, true);
  uint32_t *out = wide_chars(s);
  for (size_t pos = 0; pos < utf8.size();) {
    int32_t c = utf8_next(utf8, &pos);
    if (c < 0) {
      c = int32_t(kReplacementChar);
      pos++;
    }
    *out++ = uint32_t(c);
  }
  return from_ptr(s);
}

Value make_string_filled(int64_t n, uint32_t c) {
  String *s = alloc_string(n, c >= 0x80);
  // In blocks, polling for Ctrl-C between them: filling gigabytes of fresh pages
  // takes seconds on a busy machine.
  constexpr int64_t kBlock = int64_t(1) << 24;
  for (int64_t at = 0; at < n; at += kBlock) {
    int64_t end = std::min(n, at + kBlock);
    if (c < 0x80) std::memset(s->data + at, int(c), size_t(end - at));
    else std::fill(wide_chars(s) + at, wide_chars(s) + end, c);
    check_interrupt();
  }
  return from_ptr(s);
}

Value make_string_from_chars(const uint32_t *chars, int64_t n) {
  bool wide = !all_ascii(chars, n);
  String *s = alloc_string(n, wide);
  if (wide) std::memcpy(s->data, chars, size_t(n) * sizeof(uint32_t));
  else
    for (int64_t i = 0; i < n; i++) s->data[i] = char(chars[i]);
  return from_ptr(s);
}

Value string_slice(const String *s, int64_t start, int64_t end) {
  int64_t n = end - start;
  if (!string_is_wide(s)) {
    String *r = alloc_string(n, false);
    if (n > 0) std::memcpy(r->data, s->data + start, size_t(n));
    return from_ptr(r);
  }
  return make_string_from_chars(wide_chars(s) + start, n);
}

void string_set_char(String *s, int64_t i, uint32_t c) {
  if (!string_is_wide(s)) {
    if (c < 0x80) {
      s->data[i] = char(c);
      return;
    }
    widen(s);
  }
  wide_chars(s)[i] = c;
  string_changed(s);
}

std::string_view wide_string_utf8(String *s) {
  if (!s->utf8) {
    const uint32_t *chars = wide_chars(s);
    uint64_t bytes = 0;
    for (int64_t i = 0; i < s->len; i++) bytes += uint64_t(utf8_length(chars[i]));
    char *text = static_cast<char *>(gc_alloc_atomic(alloc_bytes(bytes, 1, 1)));
    char *out = text;
    for (int64_t i = 0; i < s->len; i++) out += utf8_encode(chars[i], out);
    *out = 0;
    s->utf8_len = int64_t(bytes);
    s->utf8 = text;
  }
  return {s->utf8, size_t(s->utf8_len)};
}

void string_copy_chars(String *to, int64_t at, const String *from, int64_t start, int64_t end) {
  int64_t n = end - start;
  if (n <= 0) return;
  if (!string_is_wide(from)) {
    if (!string_is_wide(to)) {
      std::memmove(to->data + at, from->data + start, size_t(n));
      return;
    }
    uint32_t *dst = wide_chars(to) + at;  // `to` is not `from`: their widths differ
    for (int64_t i = 0; i < n; i++) dst[i] = (unsigned char)from->data[start + i];
    string_changed(to);
    return;
  }
  const uint32_t *src = wide_chars(from) + start;
  if (!string_is_wide(to)) {
    if (all_ascii(src, n)) {
      for (int64_t i = 0; i < n; i++) to->data[at + i] = char(src[i]);
      return;
    }
    widen(to);
  }
  std::memmove(wide_chars(to) + at, src, size_t(n) * sizeof(uint32_t));
  string_changed(to);
}

}  // namespace kiln
