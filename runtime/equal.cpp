#include "runtime/equal.h"

#include <cstring>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/eval.h"
#include "runtime/object.h"

namespace kiln {

static bool bignum_equal(const Bignum *a, const Bignum *b) {
  if (a->size != b->size) return false;
  size_t n = size_t(a->size < 0 ? -a->size : a->size);
  return std::memcmp(a->limbs, b->limbs, n * sizeof(uint64_t)) == 0;
}
static bool integer_eqv(Value a, Value b) {
  if (a == b) return true;
  return is_bignum(a) && is_bignum(b) && bignum_equal(as<Bignum>(a), as<Bignum>(b));
}
static bool ratnum_equal(const Ratnum *a, const Ratnum *b) {
  return integer_eqv(a->num, b->num) && integer_eqv(a->den, b->den);
}

// Parts are a fixnum, a bignum, a ratnum or a float (bit-compared, so 0.0 and
// -0.0 differ as eqv? says).
static bool compnum_eqv(const Compnum *a, const Compnum *b) {
  auto part_eqv = [](Value x, Value y) {
    if (x == y) return true;
    if (is_bignum(x) && is_bignum(y)) return bignum_equal(as<Bignum>(x), as<Bignum>(y));
    return is_ratnum(x) && is_ratnum(y) && ratnum_equal(as<Ratnum>(x), as<Ratnum>(y));
  };
  return part_eqv(a->re, b->re) && part_eqv(a->im, b->im);
}

// Inlined into the equal? loops: a call per element is measurable there
// (docs/performance.md, "Structural equality").
static inline __attribute__((always_inline)) bool eqv_inline(Value a, Value b) {
  if (a == b) return true;
  // Doubles and fixnums are immediate and NaNs are canonical, so equal bits were
  // caught above; what remains equal by value is two bignums or two ratnums
  // (normalised, exact.h: a bignum never equals a fixnum).
  if (!is_ptr(a) || !is_ptr(b)) return false;
  uint8_t t = hdr(a)->type;
  if (t != hdr(b)->type) return false;
  if (t == T_BIGNUM) return bignum_equal(as<Bignum>(a), as<Bignum>(b));
  if (t == T_RATNUM) return ratnum_equal(as<Ratnum>(a), as<Ratnum>(b));
  if (t == T_COMPNUM) return compnum_eqv(as<Compnum>(a), as<Compnum>(b));
  return false;
}

bool eqv(Value a, Value b) { return eqv_inline(a, b); }

// equal? must terminate on cyclic data (R7RS), comparing the infinite trees
// the values unfold to: #0=(1 . #0#) and #1=(1 1 . #1#) are equal.
//
// The first attempt, equal_fast, is the plain recursive comparison (iterating
// along cdr chains, recursing on cars and elements) with two cheap checks. Two
// cdr chains that loop together come back to a pair (a, b) it has compared
// before; Brent's algorithm notices, and as one whole turn of the loop
// compared equal by then, the chains are equal. Any other cycle makes the
// comparison nest ever deeper, so past kMaxFastDepth (or a budget) it gives up, and
// equal_cyclic starts again: the same comparison, but it first records each
// pair of containers it compares as equivalent (union-find) and takes pairs
// already equivalent as equal, so it meets each object a bounded number of
// times (Adams and Dybvig, "Efficient nondestructive equality checking for
// trees and graphs", as in Chez Scheme). Deeply nested acyclic data also ends
// up there, in the same order as the first attempt would compare it.
constexpr int kMaxFastDepth = 1000;
// Calls (containers met as cars or elements; cdr steps are free) before the
// first attempt gives up too: sharing can make it exponential, as in
// (let loop ((k 60) (x '(a))) (if (= k 0) x (loop (- k 1) (list x x)))),
// which equal_cyclic compares in linear time.
constexpr int64_t kFastBudget = 1 << 20;
constexpr int kGiveUp = -1;

static int equal_fast(Value a, Value b, int depth, int64_t &budget);

// What both walkers do for values they do not descend into: 1 or 0, or
// kContainer when a and b are both pairs or both vectors (their type in *type).
constexpr int kContainer = 2;
static inline __attribute__((always_inline)) int compare_leaves(Value a, Value b, uint8_t *type) {
  if (eqv_inline(a, b)) return true;
  if (!is_ptr(a) || !is_ptr(b)) return false;
  uint8_t ta = type_of_ptr(a);
  if (ta != type_of_ptr(b)) return false;
  if (ta == T_PAIR || ta == T_VECTOR) {
    *type = ta;
    return kContainer;
  }
  if (ta == T_STRING) return string_view_of(a) == string_view_of(b);
  if (ta == T_BYTEVECTOR) {
    Bytevector *x = as<Bytevector>(a), *y = as<Bytevector>(b);
    return x->len == y->len && (x->len == 0 || std::memcmp(x->bytes, y->bytes, size_t(x->len)) == 0);
  }
  auto hook = g_type_hooks[ta].equal;
  return hook ? hook(a, b) : false;
}

// equal_fast for a car or an element, without a call for equal immediates.
static inline int equal_fast_part(Value a, Value b, int depth, int64_t &budget) {
  if (eqv_inline(a, b)) return true;
  if (!is_ptr(a) || !is_ptr(b)) return false;
  return equal_fast(a, b, depth, budget);
}

static int equal_vectors_fast(Value a, Value b, int depth, int64_t &budget) {
  Vector *va = as<Vector>(a), *vb = as<Vector>(b);
  if (va->len != vb->len) return false;
  for (int64_t i = 0; i < va->len; i++) {
    int r = equal_fast_part(va->items[i], vb->items[i], depth, budget);
    if (r != 1) return r;
  }
  return true;
}

// 1 equal, 0 not equal, kGiveUp when nesting passed kMaxFastDepth or the
// calls passed the budget.
static int equal_fast(Value a, Value b, int depth, int64_t &budget) {
  if (++depth > kMaxFastDepth || --budget < 0) return kGiveUp;
  Value mark_a = NOVALUE, mark_b = NOVALUE;  // Brent: a pair of chains that loop together
  int64_t steps = 0, power = 1;              // comes back to the last mark
  for (uint32_t n = 1;; n++) {
    if ((n & 0xFFFF) == 0) check_interrupt();  // a long chain; its cars are budgeted
    uint8_t ta;
    int leaf = compare_leaves(a, b, &ta);
    if (leaf != kContainer) return leaf;
    if (ta == T_VECTOR) return equal_vectors_fast(a, b, depth, budget);
    if (a == mark_a && b == mark_b) return true;  // every car around the loop compared equal
    if (++steps == power) {
      mark_a = a;
      mark_b = b;
      steps = 0;
      power *= 2;
    }
    int r = equal_fast_part(car(a), car(b), depth, budget);
    if (r != 1) return r;
    a = cdr(a);
    b = cdr(b);
  }
}

// Union-find over container addresses (path halving, union by size). It and
// equal_cyclic's work list hold Values in malloc memory: safe because equal? never allocates GC memory (so
// no collection runs during it) and a and b keep every object in it reachable.
class Equivalences {
 public:
  // Makes a and b equivalent; false when they already were.
  bool unite(Value a, Value b) {
    Node *ra = find(a.bits), *rb = find(b.bits);
    if (ra == rb) return false;
    if (ra->size < rb->size) std::swap(ra, rb);
    rb->parent = ra->self;
    ra->size += rb->size;
    return true;
  }

 private:
  struct Node {
    uint64_t self, parent, size;
  };
  Node *find(uint64_t x) {
    Node *n = &nodes_.try_emplace(x, Node{x, x, 1}).first->second;
    while (n->parent != n->self) {
      Node *up = &nodes_.find(n->parent)->second;
      n->parent = up->parent;  // path halving
      n = &nodes_.find(up->parent)->second;
    }
    return n;
  }
  std::unordered_map<uint64_t, Node> nodes_;  // node pointers stay valid as it grows
};

// Iterative, so nesting is bounded by memory rather than by the C stack:
// car before cdr, elements in order, as equal_fast compares them.
static bool equal_cyclic(Value a, Value b) {
  Equivalences eqs;
  std::vector<std::pair<Value, Value>> owed{{a, b}};  // comparisons still to make
  for (uint32_t n = 1; !owed.empty(); n++) {
    if ((n & 0xFFFF) == 0) check_interrupt();
    auto [x, y] = owed.back();
    owed.pop_back();
    for (;;) {
      uint8_t t;
      int leaf = compare_leaves(x, y, &t);
      if (leaf == 0) return false;
      if (leaf == 1) break;
      if (t == T_VECTOR) {
        Vector *vx = as<Vector>(x), *vy = as<Vector>(y);
        if (vx->len != vy->len) return false;
        if (!eqs.unite(x, y)) break;
        for (int64_t i = vx->len; i-- > 0;) owed.emplace_back(vx->items[i], vy->items[i]);
        break;
      }
      if (!eqs.unite(x, y)) break;  // compared already, or being compared
      owed.emplace_back(cdr(x), cdr(y));
      x = car(x);
      y = car(y);
    }
  }
  return true;
}

bool equal(Value a, Value b) {
  int64_t budget = kFastBudget;
  int r = equal_fast(a, b, 0, budget);
  if (r != kGiveUp) return r == 1;
  return equal_cyclic(a, b);
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
  if (is_ptr(v)) {
    if (hdr(v)->type == T_BIGNUM) {
      const Bignum *b = as<Bignum>(v);
      uint64_t h = uint64_t(int64_t(b->size));
      for (int32_t i = 0, n = b->size < 0 ? -b->size : b->size; i < n; i++) h = combine(h, b->limbs[i]);
      return mix(h);
    }
    if (hdr(v)->type == T_RATNUM) return combine(eqv_hash(as<Ratnum>(v)->num), eqv_hash(as<Ratnum>(v)->den));
    if (hdr(v)->type == T_COMPNUM)
      return combine(eqv_hash(as<Compnum>(v)->re), eqv_hash(as<Compnum>(v)->im) ^ 0xC0);
  }
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
  case T_BIGNUM:
  case T_RATNUM:
  case T_COMPNUM: return eqv_hash(v);
  case T_STRING: return bytes_hash(string_view_of(v));
  case T_BYTEVECTOR: {
    Bytevector *b = as<Bytevector>(v);
    return mix(bytes_hash(std::string_view(reinterpret_cast<const char *>(b->bytes), size_t(b->len))) ^ 0xB7);
  }
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
