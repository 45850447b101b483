#include "equal.h"

#include <cstring>

#include "object.h"

namespace kiln {

bool eqv(Value a, Value b) {
  if (a == b) return true;
  // Doubles are immediate and NaNs are canonical, so equal bits were caught
  // above; what remains equal by value is a pair of integers (a boxed T_INT64
  // is never equal to a fixnum, but comparing int_of keeps that an invariant
  // of value.h rather than of this file).
  if (is_int(a) && is_int(b)) return int_of(a) == int_of(b);
  return false;
}

static bool equal_vectors(Value a, Value b);

bool equal(Value a, Value b) {
  // Walk the cdr chain iteratively; only cars (and vector elements) recurse.
  for (;;) {
    if (eqv(a, b)) return true;
    if (!is_ptr(a) || !is_ptr(b)) return false;
    uint8_t ta = type_of_ptr(a);
    if (ta != type_of_ptr(b)) return false;
    switch (ta) {
    case T_PAIR:
      if (!equal(car(a), car(b))) return false;
      a = cdr(a);
      b = cdr(b);
      continue;
    case T_STRING: return string_view_of(a) == string_view_of(b);
    case T_VECTOR: return equal_vectors(a, b);
    default: {
      auto hook = g_type_hooks[ta].equal;
      return hook ? hook(a, b) : false;
    }
    }
  }
}

static bool equal_vectors(Value a, Value b) {
  Vector *va = as<Vector>(a), *vb = as<Vector>(b);
  if (va->len != vb->len) return false;
  for (int64_t i = 0; i < va->len; i++)
    if (!equal(va->items[i], vb->items[i])) return false;
  return true;
}

// A 64-bit finaliser (splitmix64): spreads nearby words over the whole range,
// which the open-addressing tables need because they mask the low bits.
static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
static uint64_t combine(uint64_t h, uint64_t x) {
  return mix(h ^ (x + 0x517CC1B727220A95ull + (h << 6) + (h >> 2)));
}

uint64_t eq_hash(Value v) { return mix(v.bits); }

uint64_t eqv_hash(Value v) {
  if (is_int(v)) return mix(uint64_t(int_of(v)) ^ 0x1234567ull);
  return mix(v.bits);
}

static uint64_t bytes_hash(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ull;
  return mix(h ^ s.size());
}

// `budget` bounds the number of nodes visited, so the hash of a huge list or
// vector costs O(1); any prefix-based hash stays consistent with equal?.
static uint64_t hash_bounded(Value v, int &budget) {
  if (--budget < 0) return 0x5EED;
  if (!is_ptr(v)) return eqv_hash(v);
  uint8_t t = type_of_ptr(v);
  switch (t) {
  case T_INT64: return eqv_hash(v);
  case T_STRING: return bytes_hash(string_view_of(v));
  case T_SYMBOL: return mix(sym(v)->hash ^ 0xA5A5ull);
  case T_PAIR: {
    uint64_t h = 0x9A17;
    while (is_pair(v) && budget > 0) {
      h = combine(h, hash_bounded(car(v), budget));
      v = cdr(v);
      --budget;
    }
    if (!is_pair(v)) h = combine(h, hash_bounded(v, budget));
    return h;
  }
  case T_VECTOR: {
    Vector *vec = as<Vector>(v);
    uint64_t h = combine(0x7EC7, uint64_t(vec->len));
    for (int64_t i = 0; i < vec->len && budget > 0; i++) h = combine(h, hash_bounded(vec->items[i], budget));
    return h;
  }
  default:
    // A type with its own equal? hook compares contents we cannot see here:
    // all its values share one hash (correct, if slow for many such keys).
    if (g_type_hooks[t].equal) return mix(0xC0DE00ull + t);
    return eq_hash(v);
  }
}

uint64_t equal_hash(Value v) {
  int budget = 64;
  return hash_bounded(v, budget);
}

}  // namespace kiln
