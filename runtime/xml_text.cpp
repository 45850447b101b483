// xml_text.cpp — see xml_text.h.
#include "runtime/xml_text.h"

#include <cstdint>

namespace kiln {
namespace {

std::string hex_escape(unsigned char c) {
  static const char digits[] = "0123456789ABCDEF";
  return std::string("\\x") + digits[c >> 4] + digits[c & 15] + ";";
}

// Length of the valid UTF-8 sequence at s[i] naming a character XML allows, or 0.
size_t utf8_char_length(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len;
  uint32_t cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) len = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) len = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) len = 4, cp = c & 0x07;
  else return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; k++) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (d & 0x3F);
  }
  bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  bool invalid = cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF;
  return overlong || invalid ? 0 : len;
}

}  // namespace

std::string printable_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = utf8_char_length(s, i);
    if (len == 0 || (c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) {
      out += hex_escape(c);
      i++;
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string xml_escape(std::string_view s) {
  std::string out;
  for (char c : printable_text(s)) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default: out += c;
    }
  }
  return out;
}

}  // namespace kiln
