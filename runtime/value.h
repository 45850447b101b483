// value.h — the Kiln value word.
//
// Invariant: a Value is one 64-bit word, and every reference to a heap object is
// stored as the object's real address, unmodified, so the conservative Boehm
// collector sees it wherever the word lives (stack, registers, GC memory).
//
//   heap pointer  0x0000_pppp_pppp_ppp0   top 16 bits 0, low 3 bits 0, not 0
//   constants     0x0000_0000_0000_0XXk   top 16 bits 0, low 3 bits != 0
//   char          0x0000_0000_00cc_cc0F   (code << 8) | 0x0F
//   double        raw IEEE bits + 2^49    top 16 bits in [0x0002, 0xFFF2]
//   fixnum        0xFFFC_0000_0000_0000 | (n & (2^50 - 1)),  -2^49 <= n < 2^49
//
// Doubles are therefore immediate (arithmetic on them never allocates); NaNs are
// canonicalised when boxed so no NaN payload can reach the fixnum range.
// Integers outside the fixnum range are heap objects of type T_INT64; use
// make_int / is_int / int_of, never the fixnum helpers, outside this file.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace kiln {

struct Value {
  uint64_t bits;
  constexpr bool operator==(const Value &o) const { return bits == o.bits; }
  constexpr bool operator!=(const Value &o) const { return bits != o.bits; }
};

constexpr uint64_t kDoubleOffset = 1ull << 49;
constexpr uint64_t kFixnumTag = 0xFFFCull << 48;
constexpr uint64_t kFixnumMask = (1ull << 50) - 1;
constexpr int64_t kFixnumMin = -(1ll << 49);
constexpr int64_t kFixnumMax = (1ll << 49) - 1;

constexpr Value mk(uint64_t b) { return Value{b}; }

// Constants. 0 is reserved for "no value" (unbound globals, empty slots).
constexpr Value NOVALUE = mk(0);
constexpr Value FALSE_V = mk(0x06);
constexpr Value TRUE_V = mk(0x0E);
constexpr Value NIL = mk(0x16);
constexpr Value UNSPEC = mk(0x1E);
constexpr Value EOF_V = mk(0x26);
constexpr Value DEFAULT_V = mk(0x2E);  // missing optional argument marker
constexpr Value UNINIT = mk(0x36);     // letrec slot not yet initialised

inline bool is_ptr(Value v) { return (v.bits & 0xFFFF000000000007ull) == 0 && v.bits != 0; }
inline bool is_fixnum(Value v) { return (v.bits >> 50) == 0x3FFF; }
inline bool is_double(Value v) { return v.bits >= kDoubleOffset && v.bits < kFixnumTag; }
inline bool is_char(Value v) { return (v.bits & 0xFFFF0000000000FFull) == 0x0F; }
inline bool is_bool(Value v) { return v == FALSE_V || v == TRUE_V; }
inline bool truthy(Value v) { return v != FALSE_V; }
inline Value boolv(bool b) { return b ? TRUE_V : FALSE_V; }

inline Value make_fixnum(int64_t n) { return mk(kFixnumTag | (uint64_t(n) & kFixnumMask)); }
inline int64_t fixnum_of(Value v) { return int64_t(v.bits << 14) >> 14; }
inline bool fits_fixnum(int64_t n) { return n >= kFixnumMin && n <= kFixnumMax; }

inline Value make_double(double d) {
  uint64_t b;
  if (d != d) b = 0x7FF8000000000000ull;
  else std::memcpy(&b, &d, 8);
  return mk(b + kDoubleOffset);
}
inline double double_of(Value v) {
  uint64_t b = v.bits - kDoubleOffset;
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

inline Value make_char(uint32_t c) { return mk((uint64_t(c) << 8) | 0x0F); }
inline uint32_t char_of(Value v) { return uint32_t(v.bits >> 8); }

}  // namespace kiln
